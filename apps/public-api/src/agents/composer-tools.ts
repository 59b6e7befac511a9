import { AppError } from '@docflow/service-kit';
import { isPlainObject } from '@docflow/workflow';
import type { ActivitiesService } from '../workflows';
import type { PromptsService } from '../documents';
import type { AgentTool, ToolContext } from './agent-tools';

/** A `:::composer_block` marker as the Composer's replies embed them (2.10): the type, then its data as JSON. */
export function composerBlock(type: 'workflow_preview' | 'agent_preview' | 'squad_preview' | 'prompt_preview' | 'navigation' | 'creation_result', data: unknown): string {
  return `:::composer_block ${type}\n${JSON.stringify(data)}\n:::`;
}

/** Words that make a user's message an explicit go-ahead. */
const CONFIRMATION = /\b(yes|yep|yeah|confirm(ed)?|go ahead|do it|create it|please (do|create)|approved?|ok(ay)?|sure|proceed|sounds good)\b/i;
const REFUSAL = /\b(no|not yet|don'?t|do not|wait|stop|cancel)\b/i;

/** Whether a message explicitly confirms (and does not refuse) what was proposed. */
export function isConfirmation(text: string): boolean {
  return CONFIRMATION.test(text) && !REFUSAL.test(text);
}

export interface ComposerCreateDeps {
  activities: ActivitiesService;
  prompts: PromptsService;
  createAgent(ctx: ToolContext, fields: Record<string, unknown>): Promise<{ id: number; name: string }>;
  createSquad(ctx: ToolContext, fields: Record<string, unknown>): Promise<{ id: number; name: string }>;
}

const NOT_CONFIRMED = {
  error: 'Not created. Show the user a preview and ask them to confirm; create it in the turn where they explicitly say yes.',
};

function creator(type: string, description: string, parameters: Record<string, unknown>, create: (ctx: ToolContext, fields: Record<string, unknown>) => Promise<{ id: number; name: string }>): AgentTool {
  return {
    description: `${description} Only after the user has explicitly confirmed the preview in their latest message.`,
    parameters,
    async run(ctx, args) {
      if (!ctx.userConfirmed) return NOT_CONFIRMED;
      try {
        const made = await create(ctx, isPlainObject(args) ? args : {});
        ctx.created?.push({ type, id: made.id, name: made.name });
        return { created: type, id: made.id, name: made.name };
      } catch (err) {
        if (err instanceof AppError) return { error: err.message, details: err.details };
        throw err;
      }
    },
  };
}

/**
 * The Composer's creating tools (spec 2.10): each creates for the acting
 * user through the same use case as the API, and only in a turn whose user
 * message is an explicit confirmation; workflows are created as drafts and
 * not validated.
 */
export function composerCreateTools(deps: ComposerCreateDeps): Map<string, AgentTool> {
  const caller = (ctx: ToolContext) => ({ id: ctx.userId, role: ctx.role ?? 'user' });
  return new Map([
    [
      'composer_create_workflow',
      creator(
        'workflow',
        'Create a workflow (activity) as a draft from a name, description and workflow_definition {nodes, edges, input_schema}.',
        { type: 'object', properties: { name: { type: 'string' }, description: { type: 'string' }, workflow_definition: { type: 'object' } }, required: ['name', 'workflow_definition'] },
        async (ctx, f) => {
          const a = await deps.activities.create(caller(ctx), { name: f['name'], description: f['description'], workflow_definition: f['workflow_definition'], status: 'draft' });
          return { id: a.id, name: a.name };
        },
      ),
    ],
    [
      'composer_create_agent',
      creator(
        'agent',
        'Create an agent from name, goal, description, available_tools, model, temperature, max_iterations.',
        { type: 'object', properties: { name: { type: 'string' }, goal: { type: 'string' }, description: { type: 'string' }, available_tools: { type: 'array', items: { type: 'string' } } }, required: ['name'] },
        (ctx, f) => deps.createAgent(ctx, f),
      ),
    ],
    [
      'composer_create_squad',
      creator(
        'squad',
        'Create a squad from name, process, manager_agent, agents [{agent_slug, role}] and tasks [{id, description, agent_slug, depends_on, output_key, expected_output}].',
        { type: 'object', properties: { name: { type: 'string' }, process: { type: 'string' }, agents: { type: 'array' }, tasks: { type: 'array' } }, required: ['name'] },
        (ctx, f) => deps.createSquad(ctx, f),
      ),
    ],
    [
      'composer_create_prompt',
      creator(
        'prompt',
        'Create a prompt from title, type (extraction, classification, summarization, ...), description, roles, tasks, instructions, output_format.',
        { type: 'object', properties: { title: { type: 'string' }, type: { type: 'string' }, description: { type: 'string' } }, required: ['title', 'type'] },
        async (ctx, f) => {
          const p = await deps.prompts.create(caller(ctx), { level: 'user', ...f });
          return { id: p.id, name: p.title };
        },
      ),
    ],
  ]);
}
