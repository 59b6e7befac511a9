import type { DataShieldOptions } from '@docflow/contracts';
import type { LlmClient } from '@docflow/llm-client';
import { errorMessage, ServiceUnavailableError } from '@docflow/service-kit';
import type { AgentEntity } from '../agent.entity';
import { runAgent } from '../agent-runner';
import type { AgentTool } from '../agent-tools';
import { topologicalOrder } from './pipeline';
import type { SquadEntity, SquadTask } from './squad.entity';

export interface BlackboardWrite {
  task_id: string;
  agent_slug: string;
  key: string;
  /** Epoch seconds. */
  timestamp: number;
}

export interface TaskResult {
  id: string;
  agent_slug: string;
  status: 'completed' | 'skipped' | 'failed';
  output: string | null;
  iterations: number;
  error?: string;
}

export interface SquadRun {
  squad_id: number;
  process: 'sequential' | 'hierarchical';
  status: 'completed' | 'failed';
  final_output: string;
  outputs: Record<string, unknown>;
  tasks: TaskResult[];
  audit_trail: BlackboardWrite[];
  iterations_used: number;
  max_total_iterations: number;
}

export interface SquadRunDeps {
  llm: Pick<LlmClient, 'chat'>;
  tools: ReadonlyMap<string, AgentTool>;
  /** A member's Data Shield option when its owner turned shielding on for it. */
  shieldFor?: (agent: AgentEntity) => Promise<DataShieldOptions | undefined>;
}

/** The `dataShield` part of a member's turn. */
async function shieldTurn(deps: SquadRunDeps, agent: AgentEntity): Promise<{ dataShield?: DataShieldOptions }> {
  const dataShield = await deps.shieldFor?.(agent);
  return dataShield ? { dataShield } : {};
}

const now = () => Math.floor(Date.now() / 1000);

/** The text a member agent is asked: the task, its context (`{{context}}` or appended) and the expected output. */
function taskPrompt(task: Pick<SquadTask, 'description' | 'expected_output'>, context: Record<string, unknown>): string {
  const json = JSON.stringify(context, null, 2);
  const body = /\{\{\s*context\s*\}\}/.test(task.description) ? task.description.replace(/\{\{\s*context\s*\}\}/g, json) : `${task.description}\n\nContext:\n${json}`;
  return task.expected_output ? `${body}\n\nExpected output: ${task.expected_output}` : body;
}

/**
 * Runs a squad (spec 2.18). The blackboard starts with the kickoff inputs
 * (written by task `_input`, agent `_system`); every task writes its answer
 * under its output_key and reads only the keys of the tasks it depends on
 * (root tasks get the inputs). Each task may use the smaller of its agent's
 * max_iterations and what is left of max_total_iterations; once the budget is
 * spent, later tasks are skipped. Sequential: tasks in dependency order,
 * final_output the answers joined. Hierarchical: the manager delegates with a
 * `delegate` tool and its own answer is final_output. A model that cannot be
 * reached stops the run (503); any other failure fails that task and skips
 * the tasks after it.
 */
export async function runSquad(
  deps: SquadRunDeps,
  squad: SquadEntity,
  members: ReadonlyMap<string, AgentEntity>,
  manager: AgentEntity | null,
  inputs: Record<string, unknown>,
  userId: number,
): Promise<SquadRun> {
  const blackboard: Record<string, unknown> = { _input: inputs };
  const audit: BlackboardWrite[] = [{ task_id: '_input', agent_slug: '_system', key: '_input', timestamp: now() }];
  let budget = squad.maxTotalIterations;
  /** Every model call of the run, the manager's included, takes one iteration of the budget as it is made. */
  const takeIteration = (): boolean => {
    if (budget <= 0) return false;
    budget -= 1;
    return true;
  };
  const keyOf = new Map(squad.tasks.map((t) => [t.id, t.output_key]));

  /** One member agent on one piece of work, within the budget. */
  const work = async (agent: AgentEntity, prompt: string): Promise<{ answer: string; iterations: number }> => {
    const cap = Math.min(agent.maxIterations, budget);
    const run = await runAgent(deps.llm, deps.tools, { ...agent, maxIterations: cap }, { userId }, { history: [], query: prompt, files: [], ...(await shieldTurn(deps, agent)) }, takeIteration);
    return { answer: run.answer, iterations: run.trace.filter((t) => t.type === 'model').length };
  };

  const results: TaskResult[] = [];
  let finalOutput = '';
  let failed = false;

  if (squad.process === 'sequential' || !manager) {
    for (const task of topologicalOrder(squad.tasks) ?? []) {
      const agent = members.get(task.agent_slug);
      if (failed || budget <= 0 || !agent) {
        results.push({ id: task.id, agent_slug: task.agent_slug, status: 'skipped', output: null, iterations: 0, ...(agent ? {} : { error: 'agent not found' }) });
        continue;
      }
      const context = task.depends_on.length === 0 ? { _input: inputs } : Object.fromEntries(task.depends_on.map((d) => [keyOf.get(d) ?? d, blackboard[keyOf.get(d) ?? d]]));
      try {
        const { answer, iterations } = await work(agent, taskPrompt(task, context));
        blackboard[task.output_key] = answer;
        audit.push({ task_id: task.id, agent_slug: task.agent_slug, key: task.output_key, timestamp: now() });
        results.push({ id: task.id, agent_slug: task.agent_slug, status: 'completed', output: answer, iterations });
      } catch (err) {
        if (err instanceof ServiceUnavailableError) throw err;
        failed = true;
        results.push({ id: task.id, agent_slug: task.agent_slug, status: 'failed', output: null, iterations: 0, error: errorMessage(err) });
      }
    }
    finalOutput = results
      .filter((r) => r.status === 'completed')
      .map((r) => r.output)
      .join('\n\n');
  } else {
    let delegations = 0;
    const done = new Set<string>();
    const delegate: AgentTool = {
      description: 'Hand a task to a member of the squad and get its answer back.',
      parameters: {
        type: 'object',
        properties: { agent_slug: { type: 'string', enum: [...members.keys()] }, task: { type: 'string' }, task_id: { type: 'string', description: 'The pipeline task this is, when it is one' } },
        required: ['agent_slug', 'task'],
      },
      async run(_ctx, args) {
        const slug = typeof args['agent_slug'] === 'string' ? args['agent_slug'] : '';
        const agent = members.get(slug);
        if (!agent) return { error: `${slug} is not a member of the squad` };
        if (budget <= 0) return { error: 'the squad’s iteration budget is spent' };
        const taskId = typeof args['task_id'] === 'string' && keyOf.has(args['task_id']) ? args['task_id'] : `delegation_${++delegations}`;
        const pipelineTask = squad.tasks.find((t) => t.id === taskId);
        const context = pipelineTask
          ? pipelineTask.depends_on.length === 0
            ? { _input: inputs }
            : Object.fromEntries(pipelineTask.depends_on.map((d) => [keyOf.get(d) ?? d, blackboard[keyOf.get(d) ?? d]]))
          : { _input: inputs };
        const text = typeof args['task'] === 'string' ? args['task'] : (pipelineTask?.description ?? '');
        const { answer, iterations } = await work(agent, taskPrompt({ description: text, expected_output: pipelineTask?.expected_output ?? null }, context));
        const key = keyOf.get(taskId) ?? taskId;
        blackboard[key] = answer;
        audit.push({ task_id: taskId, agent_slug: slug, key, timestamp: now() });
        done.add(taskId);
        results.push({ id: taskId, agent_slug: slug, status: 'completed', output: answer, iterations });
        return { answer };
      },
    };
    const plan = squad.tasks
      .map((t) => `- ${t.id} (for ${t.agent_slug}${t.depends_on.length ? `, after ${t.depends_on.join(', ')}` : ''}): ${t.description}${t.expected_output ? ` — expected: ${t.expected_output}` : ''}`)
      .join('\n');
    const brief = [
      `You manage the squad "${squad.name}".${squad.description ? ` ${squad.description}` : ''}`,
      `Members: ${[...members.values()].map((a) => `${a.slug} (${a.goal ?? a.name})`).join('; ')}.`,
      plan ? `The plan:\n${plan}` : '',
      `Inputs: ${JSON.stringify(inputs)}`,
      'Use delegate(agent_slug, task, task_id) to hand work to members, then write the final answer from what they return.',
    ]
      .filter((l) => l !== '')
      .join('\n\n');
    const tools = new Map(deps.tools);
    tools.set('delegate', delegate);
    const cap = Math.min(manager.maxIterations, budget);
    const run = await runAgent(
      deps.llm,
      tools,
      { ...manager, availableTools: ['delegate'], maxIterations: cap },
      { userId },
      { history: [], query: brief, files: [], ...(await shieldTurn(deps, manager)) },
      takeIteration,
    );
    finalOutput = run.answer;
    for (const t of squad.tasks) if (!done.has(t.id)) results.push({ id: t.id, agent_slug: t.agent_slug, status: 'skipped', output: null, iterations: 0 });
  }

  return {
    squad_id: squad.id,
    process: squad.process,
    status: failed ? 'failed' : 'completed',
    final_output: finalOutput,
    outputs: blackboard,
    tasks: results,
    audit_trail: audit,
    iterations_used: squad.maxTotalIterations - Math.max(budget, 0),
    max_total_iterations: squad.maxTotalIterations,
  };
}
