import { AppError, parseBody } from '@docflow/service-kit';
import { isPlainObject } from '@docflow/workflow';
import { CreateActivityBody, type ActivitiesService } from '../workflows';
import { CreatePromptBody, parsePromptBody, type PromptsService } from '../documents';
import type { AgentTool, ComposerPreview, ComposerRecordType, ListedRecord, ToolContext } from './agent-tools';

export type ComposerBlockType = 'workflow_preview' | 'agent_preview' | 'squad_preview' | 'prompt_preview' | 'navigation' | 'creation_result';

/** A `:::composer_block` marker as the Composer's replies embed them (2.10): the type, then its data as JSON. */
export function composerBlock(type: ComposerBlockType, data: unknown): string {
  return `:::composer_block ${type}\n${JSON.stringify(data)}\n:::`;
}

const PREVIEW_BLOCKS = { workflow: 'workflow_preview', agent: 'agent_preview', squad: 'squad_preview', prompt: 'prompt_preview' } as const satisfies Record<ComposerRecordType, string>;

/** Where the console shows a record of each kind (apps/console/src/App.tsx routes). */
export function consolePath(kind: ComposerRecordType, id: number): string {
  switch (kind) {
    case 'workflow':
      return `/activities/${id}/edit`;
    case 'agent':
      return `/agents?agent=${id}`;
    case 'squad':
      return `/agents?squad=${id}`;
    case 'prompt':
      return `/prompts?prompt=${id}`;
    default: {
      const never: never = kind;
      throw new Error(`unknown record kind ${String(never)}`);
    }
  }
}

/** A block only the server writes: any the model wrote itself (a forged preview, say) is taken out of its answer. */
const MODEL_WRITTEN_BLOCK = /:::composer_block[^\n]*\n[\s\S]*?\n:::/g;

export function withoutModelBlocks(answer: string): string {
  return answer
    .replace(MODEL_WRITTEN_BLOCK, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** Shortest name a navigation block is matched on: shorter ones ("A", "HR") would point at records the answer never meant. */
const NAME_MIN = 3;

/**
 * The records of `listed` that the answer points to, by name (case-insensitive, whole words) or as `#<id>`
 * next to their kind; each record once, those created this turn left to creation_result.
 */
export function navigationTargets(answer: string, listed: readonly ListedRecord[], created: readonly { type: string; id: number }[]): ListedRecord[] {
  const lower = answer.toLowerCase();
  const seen = new Set(created.map((c) => `${c.type}:${c.id}`));
  const out: ListedRecord[] = [];
  for (const r of listed) {
    const key = `${r.kind}:${r.id}`;
    if (seen.has(key)) continue;
    const name = r.name.trim().toLowerCase();
    const named = name.length >= NAME_MIN && new RegExp(`(^|[^\\p{L}\\p{N}])${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^\\p{L}\\p{N}])`, 'u').test(lower);
    const byId = new RegExp(`\\b${r.kind}\\s*#${r.id}\\b`, 'i').test(answer);
    if (!named && !byId) continue;
    seen.add(key);
    out.push(r);
  }
  return out;
}

/**
 * The blocks a turn's answer ends with (2.10; schemas in agents.openapi.ts and docs/decisions.md):
 * a `navigation` block per existing record the answer points to, one `<type>_preview` per preview
 * issued, then the creation_result.
 */
export function composerBlocksOf(previews: readonly ComposerPreview[], created: readonly { type: ComposerRecordType; id: number; name: string }[], navigation: readonly ListedRecord[] = []): string {
  const blocks = navigation.map((r) => composerBlock('navigation', { kind: r.kind, id: r.id, name: r.name, path: consolePath(r.kind, r.id) }));
  blocks.push(...previews.map((p) => composerBlock(PREVIEW_BLOCKS[p.type], { tool: `composer_create_${p.type}`, confirmation_id: p.confirmation_id, expires_at: p.expires_at, data: p.data })));
  if (created.length > 0) blocks.push(composerBlock('creation_result', { created: created.map((c) => ({ ...c, path: consolePath(c.type, c.id) })) }));
  return blocks.join('\n\n');
}

export interface ComposerCreateDeps {
  activities: ActivitiesService;
  prompts: PromptsService;
  createAgent(ctx: ToolContext, fields: Record<string, unknown>): Promise<{ id: number; name: string }>;
  createSquad(ctx: ToolContext, fields: Record<string, unknown>): Promise<{ id: number; name: string }>;
}

const KEY_HOLDER = {
  error: 'Not created: only the signed-in owner of the account can confirm a creation, in their own chat.',
};

const NOT_NAMED = {
  error: 'Not created: the user’s latest message does not name this confirmation_id. Show the preview and ask the user to confirm it; their confirmation names the id.',
};

const NO_MATCH = {
  error: 'Not created: this confirmation_id is not a preview of exactly these arguments by this user, or it expired or was used. Preview again (call without confirmation_id).',
};

type Made = { id: number; name: string };

/**
 * A create tool in two steps (issue 13, item 10). Called without
 * `confirmation_id`, it creates nothing: it issues a confirmation bound to
 * this tool, the hash of these exact arguments, the user and an expiry, and
 * answers the preview with its id (the turn's answer gets a `<type>_preview`
 * block carrying it). Called with `confirmation_id`, it creates only when the
 * user's message of this turn names that id and the confirmation matches
 * tool, arguments and user, is unexpired and unused (it is then used up).
 */
function creator(
  name: string,
  type: ComposerRecordType,
  description: string,
  parameters: Record<string, unknown>,
  create: (ctx: ToolContext, fields: Record<string, unknown>) => Promise<Made>,
): AgentTool {
  const properties = isPlainObject(parameters['properties']) ? parameters['properties'] : {};
  return {
    description: `${description} Call it first without confirmation_id: that only previews and returns a confirmation_id. Create by calling again with the same arguments and that confirmation_id, once the user's message confirms it by naming the id.`,
    parameters: { ...parameters, properties: { ...properties, confirmation_id: { type: 'string', description: 'The id a preview returned, once the user confirmed it' } } },
    async run(ctx, args) {
      const gate = ctx.confirmations;
      if (!gate || !gate.allowed) return KEY_HOLDER;
      const { confirmation_id: confirmationId, ...fields } = isPlainObject(args) ? args : {};
      if (confirmationId === undefined || confirmationId === null || confirmationId === '') {
        const issued = await gate.store.issue(ctx.userId, name, fields);
        const preview = { type, confirmation_id: issued.id, expires_at: issued.expiresAt.toISOString(), data: fields };
        ctx.previews?.push(preview);
        return { preview: fields, confirmation_id: issued.id, expires_at: preview.expires_at, created: false, next: 'Show the preview; create it only after the user confirms this confirmation_id.' };
      }
      if (typeof confirmationId !== 'string' || !gate.userMessage.includes(confirmationId)) return NOT_NAMED;
      if (!(await gate.store.consume(confirmationId, ctx.userId, name, fields))) return NO_MATCH;
      try {
        const made = await create(ctx, fields);
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
 * user through the same use case as the API, and only with the confirmation
 * id of a preview the user confirmed (see `creator`); workflows are created
 * as drafts and not validated, prompts at the user's own level.
 */
export function composerCreateTools(deps: ComposerCreateDeps): Map<string, AgentTool> {
  const caller = (ctx: ToolContext) => ({ id: ctx.userId, role: ctx.role ?? 'user' });
  return new Map([
    [
      'composer_create_workflow',
      creator(
        'composer_create_workflow',
        'workflow',
        'Create a workflow (activity) as a draft from a name, description and workflow_definition {nodes, edges, input_schema}.',
        { type: 'object', properties: { name: { type: 'string' }, description: { type: 'string' }, workflow_definition: { type: 'object' } }, required: ['name', 'workflow_definition'] },
        async (ctx, f) => {
          const body = parseBody(
            CreateActivityBody,
            { name: f['name'], description: f['description'], workflow_definition: f['workflow_definition'], status: 'draft' },
            { message: 'Invalid activity' },
          );
          const a = await deps.activities.create(caller(ctx), body);
          return { id: a.id, name: a.name };
        },
      ),
    ],
    [
      'composer_create_agent',
      creator(
        'composer_create_agent',
        'agent',
        'Create an agent from name, goal, description, available_tools, model, temperature, max_iterations.',
        {
          type: 'object',
          properties: { name: { type: 'string' }, goal: { type: 'string' }, description: { type: 'string' }, available_tools: { type: 'array', items: { type: 'string' } } },
          required: ['name'],
        },
        (ctx, f) => deps.createAgent(ctx, f),
      ),
    ],
    [
      'composer_create_squad',
      creator(
        'composer_create_squad',
        'squad',
        'Create a squad from name, process, manager_agent, agents [{agent_slug, role}] and tasks [{id, description, agent_slug, depends_on, output_key, expected_output}].',
        { type: 'object', properties: { name: { type: 'string' }, process: { type: 'string' }, agents: { type: 'array' }, tasks: { type: 'array' } }, required: ['name'] },
        (ctx, f) => deps.createSquad(ctx, f),
      ),
    ],
    [
      'composer_create_prompt',
      creator(
        'composer_create_prompt',
        'prompt',
        'Create a prompt from title, type (extraction, classification, summarization, ...), description, roles, tasks, instructions, output_format.',
        { type: 'object', properties: { title: { type: 'string' }, type: { type: 'string' }, description: { type: 'string' } }, required: ['title', 'type'] },
        async (ctx, f) => {
          // Always the caller's own level: a model asking for `level: system` does not get it, even for a super administrator.
          const p = await deps.prompts.create(caller(ctx), parsePromptBody(CreatePromptBody, { ...f, level: 'user' }));
          return { id: p.id, name: p.title };
        },
      ),
    ],
  ]);
}
