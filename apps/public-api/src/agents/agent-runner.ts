import type { ChatCall, ChatCallMessage, LlmClient } from '@docflow/llm-client';
import { InternalServiceError } from '@docflow/llm-client';
import type { DataShieldOptions, ModelType } from '@docflow/contracts';
import { AppError, errorMessage, ServiceUnavailableError } from '@docflow/service-kit';
import type { AgentEntity } from './agent.entity';
import type { AgentTool, ToolContext } from './agent-tools';
import type { FileRef } from './agents.dto';

export type TraceStep =
  | { step: number; type: 'model'; provider: string; model: string; tool_calls: string[]; ms: number }
  | { step: number; type: 'tool'; tool: string; arguments: Record<string, unknown>; ok: boolean; error?: string; ms: number };

export interface AgentRun {
  answer: string;
  trace: TraceStep[];
  tools_used: string[];
}

/** What one request may spend (AGENT_CHAT_MAX_MODEL_CALLS, AGENT_CHAT_MAX_TOOL_CALLS); squads have their own budget. */
export interface RequestBudget {
  modelCalls: number;
  toolCalls: number;
}

/** Tool calls one model reply may make; the rest are answered with an error (each one can be a model call or a write). */
export const MAX_TOOL_CALLS_PER_REPLY = 10;

/** A tool's answer as the model sees it, bounded. */
const TOOL_RESULT_MAX = 20_000;

function systemPrompt(agent: AgentEntity, offered: string[]): string {
  return [
    `You are ${agent.name}, an assistant in Docflow.`,
    agent.goal ? `Your goal: ${agent.goal}` : '',
    agent.description ? `About you: ${agent.description}` : '',
    offered.length > 0
      ? `Call the tools (${offered.join(', ')}) when they help; answer from what they return, and say so when they return nothing useful.`
      : 'Answer from what you know and what the user gives you.',
    offered.some((name) => name.startsWith('composer_'))
      ? 'Do not write :::composer_block markers: the server appends the preview, navigation and creation blocks for what your tools listed, previewed and created.'
      : '',
    'Answer in plain language.',
  ]
    .filter((line) => line !== '')
    .join('\n');
}

function argumentsOf(raw: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(raw || '{}');
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * One turn of an agent (spec 2.10): the model is called with the agent's
 * goal, the conversation so far and the tools it may use; each tool call is
 * run (as `ctx.userId`) and its result handed back, until the model answers
 * without calling a tool, `max_iterations` model calls have been made, or
 * `takeIteration` refuses the next one.
 */
export async function runAgent(
  llm: Pick<LlmClient, 'chat'>,
  tools: ReadonlyMap<string, AgentTool>,
  agent: AgentEntity,
  ctx: ToolContext,
  /** `dataShield`: the agent's model calls are shielded (its Data Shield setting, spec 4.17 rule 6: agent calls). */
  turn: { history: ChatCallMessage[]; query: string; files: FileRef[]; dataShield?: DataShieldOptions; budget?: RequestBudget; mcpTools?: ReadonlyMap<string, AgentTool> },
  /** Asked before each model call beyond the agent's own cap (a squad's shared budget); false stops the turn. */
  takeIteration: () => boolean = () => true,
): Promise<AgentRun> {
  // Key holders are offered only the tools that scope themselves to what the owner published.
  const own = agent.availableTools.filter((name) => tools.has(name) && (!ctx.keyHolder || tools.get(name)?.forKeyHolders === true));
  // MCP tools (`<server>.<tool>`) come filtered for this turn and caller (mcp/mcp-toolbox.ts).
  const mcp = turn.mcpTools ?? new Map<string, AgentTool>();
  const offered = [...own, ...[...mcp.keys()].filter((name) => !tools.has(name))];
  const toolNamed = (name: string) => mcp.get(name) ?? tools.get(name);
  // Providers take function names of letters, digits, _ and - only: a dotted MCP name travels as `<server>__<tool>`.
  const wire = (name: string) => name.replace(/\./g, '__');
  const fromWire = new Map(offered.map((name) => [wire(name), name]));
  const maxModelCalls = Math.min(agent.maxIterations, turn.budget?.modelCalls ?? Number.POSITIVE_INFINITY);
  const maxToolCalls = turn.budget?.toolCalls ?? Number.POSITIVE_INFINITY;
  let toolCalls = 0;
  // The files themselves are fetched and read by the LLM service with each model call of the turn (file_urls, issue 19 item 1).
  const fileNote = turn.files.length > 0 ? `\n\nAttached files (their content follows): ${turn.files.map((f) => f.name ?? f.url).join(', ')}` : '';
  const messages: ChatCallMessage[] = [{ role: 'system', content: systemPrompt(agent, offered.map(wire)) }, ...turn.history, { role: 'user', content: turn.query + fileNote }];
  const toolSpecs: ChatCall['tools'] = offered.map((name) => ({
    type: 'function',
    function: { name: wire(name), description: toolNamed(name)?.description, parameters: toolNamed(name)?.parameters },
  }));
  const trace: TraceStep[] = [];
  const used = new Set<string>();
  let step = 0;
  let modelCalls = 0;
  for (let i = 0; i < maxModelCalls && takeIteration(); i++) {
    modelCalls++;
    const started = performance.now();
    let reply;
    try {
      reply = await llm.chat({
        messages,
        model_type: agent.model as ModelType,
        temperature: agent.temperature,
        ...(toolSpecs.length > 0 ? { tools: toolSpecs, tool_choice: 'auto' } : {}),
        ...(turn.dataShield ? { data_shield: turn.dataShield } : {}),
        ...(turn.files.length > 0 ? { file_urls: turn.files } : {}),
      });
    } catch (err) {
      if (err instanceof InternalServiceError)
        throw new ServiceUnavailableError(`The language model could not be reached: ${err.message}`, err.retryAfterSeconds ? { retry_after: err.retryAfterSeconds } : {});
      throw err;
    }
    const calls = reply.message.tool_calls ?? [];
    trace.push({
      step: ++step,
      type: 'model',
      provider: reply.provider,
      model: reply.model,
      tool_calls: calls.map((c) => fromWire.get(c.function.name) ?? c.function.name),
      ms: Math.round(performance.now() - started),
    });
    if (calls.length === 0) return { answer: reply.message.content, trace, tools_used: [...used] };
    messages.push({ role: 'assistant', content: reply.message.content || null, tool_calls: calls });
    for (const [index, call] of calls.entries()) {
      const args = argumentsOf(call.function.arguments);
      const name = fromWire.get(call.function.name) ?? call.function.name;
      const tool = offered.includes(name) ? toolNamed(name) : undefined;
      const t0 = performance.now();
      let result: unknown;
      let error: string | undefined;
      if (index >= MAX_TOOL_CALLS_PER_REPLY) error = `not run: at most ${MAX_TOOL_CALLS_PER_REPLY} tool calls per reply`;
      else if (toolCalls >= maxToolCalls) error = `not run: at most ${maxToolCalls} tool calls per request`;
      else if (!tool) error = `no tool named ${name} is available to this agent`;
      else {
        toolCalls++;
        try {
          result = await tool.run(ctx, args);
          used.add(name);
        } catch (err) {
          // Our own errors say what the caller may know; anything else (a database message, say) is logged, not shown.
          if (err instanceof AppError) error = err.message;
          else {
            error = 'the tool failed';
            ctx.logger?.error('agent tool failed', { tool: name, error: errorMessage(err) });
          }
        }
      }
      trace.push({ step: ++step, type: 'tool', tool: name, arguments: args, ok: error === undefined, ...(error !== undefined ? { error } : {}), ms: Math.round(performance.now() - t0) });
      const content = JSON.stringify(error !== undefined ? { error } : result) ?? 'null';
      messages.push({ role: 'tool', tool_call_id: call.id, content: content.length > TOOL_RESULT_MAX ? `${content.slice(0, TOOL_RESULT_MAX)}…` : content });
    }
  }
  return { answer: `I could not finish within ${modelCalls} steps. Here is what I found so far in the trace.`, trace, tools_used: [...used] };
}
