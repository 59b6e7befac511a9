import { randomUUID } from 'node:crypto';
import { DEFAULT_TOP_K, INTERNAL_RAG_ENABLE_PATH, INTERNAL_RAG_QUERY_PATH, MAX_TOP_K, type InternalRagEnableBody, type InternalRagQueryBody } from '@docflow/contracts';
import { NodeFailure, type TaskExecutor } from '../executor';
import { notAvailableExecutor } from '../not-available/not-available';
import { RagApiClient, type RagExecutorDeps } from './rag-api.client';
import { bodyOf, booleanField, idField, requiredId, timeoutMsOf, userIdFor } from './rag-body';

export type { RagExecutorDeps } from './rag-api.client';

const SNIPPET_CHARS = 300;

export interface RagSourceOutput {
  document_id: number;
  document_name: string;
  snippet: string;
  score: number;
  page: number | null;
}

function snippetOf(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= SNIPPET_CHARS) return flat;
  const cut = flat.lastIndexOf(' ', SNIPPET_CHARS);
  return `${flat.slice(0, cut > SNIPPET_CHARS / 2 ? cut : SNIPPET_CHARS)}…`;
}

function sourcesOf(raw: unknown): RagSourceOutput[] {
  if (!Array.isArray(raw)) throw new NodeFailure('http_error', '200 the public API answered without sources');
  return raw
    .filter((s): s is Record<string, unknown> => s !== null && typeof s === 'object' && !Array.isArray(s))
    .map((s) => ({
      document_id: Number(s['document_id']),
      document_name: typeof s['document_name'] === 'string' ? s['document_name'] : `Document ${String(s['document_id'])}`,
      snippet: snippetOf(typeof s['chunk_text'] === 'string' ? s['chunk_text'] : ''),
      score: typeof s['score'] === 'number' ? s['score'] : 0,
      page: typeof s['page'] === 'number' ? s['page'] : null,
    }));
}

/**
 * `rag_enable_task` (spec 2.7): POST /api/internal/rag/enable with
 * `{document_id, user_id, force_reprocess}`; the output is the queued job,
 * `{rag_status, rag_job_id, document_id}` (indexing goes on in the background).
 */
export function createRagEnableExecutor(client: RagApiClient): TaskExecutor {
  return async (ctx) => {
    const fields = bodyOf(ctx);
    const body: InternalRagEnableBody = { document_id: requiredId(fields, 'document_id'), user_id: userIdFor(ctx, fields), force_reprocess: booleanField(fields, 'force_reprocess', false) };
    const res = await client.post(INTERNAL_RAG_ENABLE_PATH, { ...body }, { signal: ctx.signal, timeoutMs: timeoutMsOf(ctx) });
    ctx.logger.info('rag enable requested', { nodeId: ctx.nodeId, documentId: body.document_id, ragStatus: res['rag_status'] });
    return { output: { rag_status: res['rag_status'] ?? null, rag_job_id: res['rag_job_id'] ?? null, document_id: body.document_id } };
  };
}

/**
 * `rag_query_task` (spec 2.7): POST /api/internal/rag/query with
 * `{query, user_id, top_k}`; the output is `{answer, sources: [{document_id,
 * document_name, snippet, score, page}], session_id, context_used}`, with a
 * generated session id when the node gives none.
 */
export function createRagQueryExecutor(client: RagApiClient): TaskExecutor {
  return async (ctx) => {
    const fields = bodyOf(ctx);
    const query = typeof fields['query'] === 'string' ? fields['query'].trim() : '';
    if (!query) throw new NodeFailure('configuration_error', 'query is required');
    const topK = idField(fields, 'top_k') ?? DEFAULT_TOP_K;
    if (topK > MAX_TOP_K) throw new NodeFailure('configuration_error', `top_k must be at most ${MAX_TOP_K} (got ${topK})`);
    const given = fields['session_id'];
    const sessionId = typeof given === 'string' && given.trim() ? given.trim() : `rag_${randomUUID()}`;
    const body: InternalRagQueryBody = { query, user_id: userIdFor(ctx, fields), top_k: topK, session_id: sessionId };
    const res = await client.post(INTERNAL_RAG_QUERY_PATH, { ...body }, { signal: ctx.signal, timeoutMs: timeoutMsOf(ctx) });
    const sources = sourcesOf(res['sources']);
    ctx.logger.info('rag query answered', { nodeId: ctx.nodeId, sources: sources.length });
    return {
      output: {
        answer: typeof res['answer'] === 'string' ? res['answer'] : '',
        sources,
        session_id: typeof res['session_id'] === 'string' ? res['session_id'] : sessionId,
        context_used: typeof res['context_used'] === 'number' ? res['context_used'] : sources.length,
      },
    };
  };
}

export interface RagExecutors {
  rag_enable_task: TaskExecutor;
  rag_query_task: TaskExecutor;
  /** Frees the client's pooled sockets. */
  close(): void;
}

/** Both RAG executors over one client; without deps they fail as not_available (a build with no public API address). */
export function buildRagExecutors(deps: RagExecutorDeps | undefined): RagExecutors {
  if (!deps) return { rag_enable_task: notAvailableExecutor('rag_enable_task'), rag_query_task: notAvailableExecutor('rag_query_task'), close: () => undefined };
  const client = new RagApiClient(deps);
  return { rag_enable_task: createRagEnableExecutor(client), rag_query_task: createRagQueryExecutor(client), close: () => client.close() };
}
