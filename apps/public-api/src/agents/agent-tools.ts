import { parseListQuery } from '@docflow/list-query';
import type { Logger } from '@docflow/service-kit';
import { TASK_TYPES } from '@docflow/workflow';
import type { ActivitiesRepository } from '../workflows';
import { activityListSpec } from '../workflows';
import type { DocumentsService } from '../documents';
import { documentListSpec } from '../documents';
import type { PromptsRepository } from '../documents';
import type { SquadsRepository } from './squads/squads.repository';
import type { UserRole } from '../identity';
import type { AgentsRepository } from './agents.repository';
import type { ComposerConfirmationsRepository } from './composer-confirmations.repository';

/** Who a tool acts for: the user whose data it may read (and, for the Composer, write). */
export interface ToolContext {
  userId: number;
  role?: UserRole;
  /**
   * The caller holds the agent's key (a public widget's visitor), acting as its owner: only the tools marked
   * `forKeyHolders` are offered, and they read only `publicDocumentIds`.
   */
  keyHolder?: boolean;
  /** For key holders: the documents of the collection the owner made public to the agent (`public_collection_id`). */
  publicDocumentIds?: number[];
  /** The Composer's previews and their confirmations; without it the create tools never create (squad members). */
  confirmations?: ConfirmationGate;
  /** What this turn created, for the Composer's creation_result block. */
  created?: { type: ComposerRecordType; id: number; name: string }[];
  /** What this turn previewed, for the Composer's `<type>_preview` blocks. */
  previews?: ComposerPreview[];
  /** Existing records the Composer's list tools returned this turn, for its `navigation` blocks. */
  listed?: ListedRecord[];
  /** Where a tool's unexpected failure is logged (its message is not shown to the caller). */
  logger?: Logger;
}

/** What a create tool needs to preview and to create (composer-tools.ts). */
export interface ConfirmationGate {
  /** Whether the caller may confirm: a signed-in user acting for their own account, never a key holder. */
  allowed: boolean;
  /** The user's message of this turn: a creation runs only when it names the preview's confirmation id. */
  userMessage: string;
  store: Pick<ComposerConfirmationsRepository, 'issue' | 'consume'>;
}

/** What the Composer creates. */
export type ComposerRecordType = 'workflow' | 'agent' | 'squad' | 'prompt';

/** A record a list tool returned: what a `navigation` block points to when the answer names it. */
export interface ListedRecord {
  kind: ComposerRecordType;
  id: number;
  name: string;
}

export interface ComposerPreview {
  type: ComposerRecordType;
  confirmation_id: string;
  expires_at: string;
  data: Record<string, unknown>;
}

export interface AgentTool {
  description: string;
  /** JSON schema of the arguments. */
  parameters: Record<string, unknown>;
  run(ctx: ToolContext, args: Record<string, unknown>): Promise<unknown>;
  /** Offered to key holders too; such a tool must honour `ToolContext.keyHolder`. */
  forKeyHolders?: boolean;
}

export interface AgentToolsDeps {
  activities: ActivitiesRepository;
  documents: DocumentsService;
  prompts: PromptsRepository;
  agents: AgentsRepository;
  squads: Pick<SquadsRepository, 'listOwned'>;
  /** RAG over the user's documents (RagService.query). */
  ask(
    userId: number,
    question: { query: string; topK: number; onlyDocumentIds?: number[] },
  ): Promise<{ answer: string; sources: { document_id: number; document_name: string; chunk_text: string; score: number }[] }>;
}

const NO_ARGS = { type: 'object', properties: {}, additionalProperties: false };
const FIRST_PAGE = 'pagination[pageSize]=50';

/**
 * The tools an agent may be given in `available_tools`. Each reads only what
 * the acting user may read; key holders are offered only search_documents and
 * list_documents, over the collection the owner made public to the agent. Names an agent lists that are not here are not
 * offered to the model (the Composer's create tools among them, for now).
 */
export function agentTools(deps: AgentToolsDeps): ReadonlyMap<string, AgentTool> {
  const listWorkflows: AgentTool = {
    description: 'List the workflows (activities) the user can run: id, name, description, status.',
    parameters: NO_ARGS,
    async run(ctx) {
      const { rows } = await deps.activities.list(ctx.userId, parseListQuery(FIRST_PAGE, activityListSpec));
      ctx.listed?.push(...rows.map((a) => ({ kind: 'workflow' as const, id: a.id, name: a.name })));
      return rows.map((a) => ({ id: a.id, name: a.name, description: a.description, status: a.status, level: a.level }));
    },
  };
  const searchDocuments: AgentTool = {
    forKeyHolders: true,
    description: "Search the user's RAG-enabled documents and answer from them, with the passages used.",
    parameters: { type: 'object', properties: { query: { type: 'string' }, top_k: { type: 'integer', minimum: 1, maximum: 20 } }, required: ['query'] },
    async run(ctx, args) {
      const query = typeof args['query'] === 'string' ? args['query'] : '';
      if (query.trim() === '') return { error: 'query is required' };
      const topK = typeof args['top_k'] === 'number' ? Math.min(20, Math.max(1, Math.floor(args['top_k']))) : 5;
      const only = ctx.keyHolder ? (ctx.publicDocumentIds ?? []) : undefined;
      if (only !== undefined && only.length === 0) return { answer: 'No documents are public to this agent.', sources: [] };
      const a = await deps.ask(ctx.userId, { query, topK, ...(only !== undefined ? { onlyDocumentIds: only } : {}) });
      return { answer: a.answer, sources: a.sources.map((s) => ({ document_id: s.document_id, title: s.document_name, snippet: s.chunk_text.slice(0, 500), score: s.score })) };
    },
  };
  return new Map<string, AgentTool>([
    ['search_documents', searchDocuments],
    [
      'list_documents',
      {
        forKeyHolders: true,
        description: "List the user's newest documents: id, title, MIME type, RAG status.",
        parameters: NO_ARGS,
        async run(ctx) {
          // A key holder sees only the documents the owner made public to the agent.
          const only = ctx.keyHolder ? (ctx.publicDocumentIds ?? []) : undefined;
          if (only !== undefined && only.length === 0) return [];
          const filter = only === undefined ? '' : only.map((id) => `&filters[id][$in][]=${id}`).join('');
          const page = await deps.documents.list(ctx.userId, parseListQuery(`${FIRST_PAGE}${filter}`, documentListSpec));
          return page.data.map((d) => ({ id: d.id, title: d.title, mime_type: d.mime_type, rag_status: d.ragStatus }));
        },
      },
    ],
    ['list_workflows', listWorkflows],
    ['composer_list_workflows', listWorkflows],
    [
      'composer_list_task_types',
      {
        description: 'List the task types a workflow node can use: id, name, category, description.',
        parameters: NO_ARGS,
        run: async () => TASK_TYPES.map((t) => ({ id: t.id, name: t.name, category: t.category, description: t.description })),
      },
    ],
    [
      'composer_list_agents',
      {
        description: 'List the agents the user can use: id, name, slug, goal.',
        parameters: NO_ARGS,
        async run(ctx) {
          const rows = await deps.agents.visibleTo(ctx.userId);
          ctx.listed?.push(...rows.map((g) => ({ kind: 'agent' as const, id: g.id, name: g.name })));
          return rows.map((g) => ({ id: g.id, name: g.name, slug: g.slug, goal: g.goal }));
        },
      },
    ],
    [
      'composer_list_prompts',
      {
        description: 'List the prompts the user can use: id, title, type, level.',
        parameters: NO_ARGS,
        async run(ctx) {
          const rows = (await deps.prompts.visibleTo(ctx.userId)).slice(0, 200);
          ctx.listed?.push(...rows.map((p) => ({ kind: 'prompt' as const, id: p.id, name: p.title })));
          return rows.map((p) => ({ id: p.id, title: p.title, type: p.type, level: p.level }));
        },
      },
    ],
    [
      'composer_list_squads',
      {
        description: 'List the squads (teams of agents) the user can kick off: id, name, slug, process, members, task ids.',
        parameters: NO_ARGS,
        async run(ctx) {
          const rows = await deps.squads.listOwned(ctx.userId);
          ctx.listed?.push(...rows.map((s) => ({ kind: 'squad' as const, id: s.id, name: s.name })));
          return rows.map((s) => ({
            id: s.id,
            name: s.name,
            slug: s.slug,
            process: s.process,
            agents: s.agents.map((m) => m.agent_slug),
            tasks: s.tasks.map((t) => t.id),
          }));
        },
      },
    ],
  ]);
}
