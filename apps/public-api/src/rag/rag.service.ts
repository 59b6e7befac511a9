import type { DataShieldOptions } from '@docflow/contracts';
import { randomUUID } from 'node:crypto';
import type { ModelType } from '@docflow/contracts';
import type { LlmClient } from '@docflow/llm-client';
import { errorMessage, type Logger, NotFoundError, ServiceUnavailableError } from '@docflow/service-kit';
import { fileUrlOf, type RagProcessingStatus, type RagStatus, signedDownloadUrl, type SignedUrlConfig } from '../documents';
import { type ContextPassage, extractiveAnswer, groundedMessages } from './answer';
import type { Embedder } from './embedder';
import type { RagIndexJobV1 } from './rag-index-job';
import type { RagIndexRepository, RagState } from './rag-index.repository';
import type { RagMetrics } from './rag-metrics';
import type { RagRetrievalRepository, RetrievedChunk } from './rag-retrieval.repository';

/** Sends an indexing job to rag_index_queue (confirmed by the broker before it resolves). */
export interface RagJobPublisher {
  publish(job: RagIndexJobV1): Promise<void>;
}

export interface RagServiceConfig extends SignedUrlConfig {
  RAG_MODEL_TYPE: ModelType;
  RAG_ANSWER_TIMEOUT_SECONDS: number;
}

/** The answer of both enable endpoints (spec 4.14: `rag_status`, `rag_job_id`). */
export interface EnableResult {
  document_id: number;
  /** The document's processing status after the call: `queued` for a new job, else what it already was. */
  rag_status: RagProcessingStatus | 'disabled';
  rag_job_id: string | null;
  /** True when this call queued a job. */
  queued: boolean;
  ragEnabled: boolean;
  ragStatus: RagStatus;
}

export interface RagStatusView {
  document_id: number;
  rag_processing_status: RagProcessingStatus | null;
  rag_chunk_count: number;
  ragEnabled: boolean;
  ragStatus: RagStatus;
  rag_error: string | null;
  rag_job_id: string | null;
  updatedAt: string;
}

export interface RagSource {
  document_id: number;
  document_name: string;
  chunk_text: string;
  /** Reciprocal-rank-fusion score scaled to 0..1 (1: first in every ranking used). */
  score: number;
  file_url: string;
  /** Downloads the file without a token until `signed_url_expires_at`. */
  signed_url: string;
  signed_url_expires_at: string;
  page: number | null;
  chunk_index: number;
}

export interface RagAnswer {
  answer: string;
  sources: RagSource[];
  query: string;
  /** How many retrieved passages the answer was grounded in. */
  context_used: number;
  /** `generated` by a language model, `extractive` (quoted sentences: the local engine, or the model was unreachable), `none` (nothing retrieved). */
  answer_mode: 'generated' | 'extractive' | 'none';
  provider: string | null;
  model: string | null;
  session_id?: string;
}

export interface RagQueryInput {
  query: string;
  topK: number;
  sessionId?: string;
  /** Shields the answer's model call (a chatbot that opted in; beyond spec 4.17 rule 6). */
  dataShield?: DataShieldOptions;
  /** Answer only from these documents (an agent's key holders). */
  onlyDocumentIds?: number[];
  /** Lifetime of the sources' signed URLs; default SIGNED_URL_TTL_SECONDS (chatbot visitors get minutes). */
  signedUrlTtlSeconds?: number;
}

export interface RagServiceDeps {
  index: RagIndexRepository;
  retrieval: RagRetrievalRepository;
  /** Null when the process has no broker (enable answers 503). */
  publisher: RagJobPublisher | null;
  embedder: Embedder;
  llm: Pick<LlmClient, 'chat'>;
  config: RagServiceConfig;
  logger: Logger;
  metrics: RagMetrics;
  /** The fusion constant retrieval uses (scales scores to 0..1). Default 60. */
  rrfK?: number;
  /** Clock of signed URLs (tests). */
  now?: () => number;
}

export const NO_ANSWER = 'No indexed document you can see answers this question.';

function statusView(s: RagState): RagStatusView {
  return {
    document_id: s.documentId,
    rag_processing_status: s.ragProcessingStatus,
    rag_chunk_count: s.ragChunkCount,
    ragEnabled: s.ragEnabled,
    ragStatus: s.ragStatus,
    rag_error: s.ragError,
    rag_job_id: s.ragJobId,
    updatedAt: s.updatedAt.toISOString(),
  };
}

const seconds = (startedMs: number) => (performance.now() - startedMs) / 1000;

/** Enabling RAG on documents, their status, and grounded answers over the caller's visible chunks. */
export class RagService {
  constructor(private readonly deps: RagServiceDeps) {}

  /**
   * Queues an indexing job for the owner's document and answers at once
   * (`queued`); an indexed, queued or running document without `force` is
   * left as it is. NotFoundError for a document the user does not own.
   */
  async enable(documentId: number, userId: number, force: boolean): Promise<EnableResult> {
    const { index, publisher, logger } = this.deps;
    if (!publisher) throw new ServiceUnavailableError('RAG indexing is not available: no message broker');
    const jobId = randomUUID();
    const outcome = await index.requestIndexing(documentId, userId, jobId, force);
    if (!outcome) throw new NotFoundError('Document not found');
    const state = outcome.state;
    const result = (queued: boolean): EnableResult => ({
      document_id: documentId,
      rag_status: state.ragProcessingStatus ?? 'disabled',
      rag_job_id: state.ragJobId,
      queued,
      ragEnabled: state.ragEnabled,
      ragStatus: state.ragStatus,
    });
    if (outcome.kind === 'unchanged') return result(false);
    try {
      await publisher.publish({ version: 1, job_id: jobId, document_id: documentId, user_id: userId, force_reprocess: force, requested_at: new Date().toISOString() });
    } catch (err) {
      await index.restore(outcome.previous, jobId);
      throw err;
    }
    logger.info('rag indexing queued', { documentId, ragJobId: jobId, force });
    return result(true);
  }

  /** A document's RAG fields; with `userId`, only the owner's document. */
  async status(documentId: number, userId?: number): Promise<RagStatusView> {
    const state = await this.deps.index.state(documentId, userId);
    if (!state) throw new NotFoundError('Document not found');
    return statusView(state);
  }

  async ask(userId: number, input: RagQueryInput): Promise<RagAnswer> {
    const { embedder, retrieval, metrics } = this.deps;
    let t = performance.now();
    const embedded = await embedder.embed([input.query], { timeoutMs: 10000 });
    const vector = embedded?.vectors[0];
    metrics.queryStage('embedding', seconds(t));
    t = performance.now();
    const chunks = await retrieval.search({
      userId,
      text: input.query,
      embedding: vector && embedded ? { vector, model: embedded.model } : null,
      limit: input.topK,
      ...(input.onlyDocumentIds !== undefined ? { onlyDocumentIds: input.onlyDocumentIds } : {}),
    });
    metrics.queryStage('retrieval', seconds(t));
    const rankers = vector ? 2 : 1;
    const sources = this.sources(chunks, rankers, input.signedUrlTtlSeconds);
    const base = { sources, query: input.query, ...(input.sessionId !== undefined ? { session_id: input.sessionId } : {}) };
    if (chunks.length === 0) return { answer: NO_ANSWER, context_used: 0, answer_mode: 'none', provider: null, model: null, ...base };
    t = performance.now();
    const passages: ContextPassage[] = chunks.map((c, i) => ({ n: i + 1, documentTitle: c.documentTitle, page: c.page, content: c.content }));
    const answered = await this.answer(input.query, passages, input.dataShield);
    metrics.queryStage('answer', seconds(t));
    return { ...answered, context_used: passages.length, ...base };
  }

  private async answer(question: string, passages: ContextPassage[], dataShield?: DataShieldOptions): Promise<Pick<RagAnswer, 'answer' | 'answer_mode' | 'provider' | 'model'>> {
    const { llm, config, logger } = this.deps;
    try {
      const res = await llm.chat(
        { messages: groundedMessages(question, passages), model_type: config.RAG_MODEL_TYPE, temperature: 0, max_tokens: 800, task_hint: 'chat', ...(dataShield ? { data_shield: dataShield } : {}) },
        { timeoutMs: config.RAG_ANSWER_TIMEOUT_SECONDS * 1000 },
      );
      const text = res.message.content.trim();
      // The local engine cannot write an answer with citations: quote the best-supported sentences instead.
      if (res.provider !== 'local' && text) return { answer: text, answer_mode: 'generated', provider: res.provider, model: res.model };
      return { answer: extractiveAnswer(question, passages), answer_mode: 'extractive', provider: res.provider, model: res.model };
    } catch (err) {
      logger.warn('rag answer: LLM service unavailable, quoting the sources instead', { error: errorMessage(err) });
      return { answer: extractiveAnswer(question, passages), answer_mode: 'extractive', provider: null, model: null };
    }
  }

  private sources(chunks: RetrievedChunk[], rankers: number, ttlSeconds: number | undefined): RagSource[] {
    const { config } = this.deps;
    const now = this.deps.now?.() ?? Date.now();
    const best = rankers / ((this.deps.rrfK ?? 60) + 1);
    const signed = new Map<number, { url: string; expiresAt: Date }>();
    return chunks.map((c) => {
      let link = signed.get(c.documentId);
      if (!link) {
        link = signedDownloadUrl(config, c.documentId, { now, ...(ttlSeconds !== undefined ? { ttlSeconds } : {}) });
        signed.set(c.documentId, link);
      }
      return {
        document_id: c.documentId,
        document_name: c.documentTitle,
        chunk_text: c.content,
        score: Math.round(Math.min(1, c.score / best) * 10000) / 10000,
        file_url: fileUrlOf({ id: c.documentId, visibility: c.visibility, globalKey: c.globalKey }, config.PUBLIC_BASE_URL),
        signed_url: link.url,
        signed_url_expires_at: link.expiresAt.toISOString(),
        page: c.page,
        chunk_index: c.chunkIndex,
      };
    });
  }
}
