import type { MessageMeta } from '@docflow/messaging';
import type { Logger } from '@docflow/service-kit';
import type { PublicApiDatabase } from '../platform';
import { type DocumentTextResult, getDocumentText, type TextExtractionRunner } from '../documents';
import { chunkDocument, type ChunkerOptions, DEFAULT_CHUNKER_OPTIONS } from './chunker';
import type { Embedder } from './embedder';
import type { RagIndexJobV1 } from './rag-index-job';
import type { IndexClaim, RagIndexRepository } from './rag-index.repository';
import type { RagMetrics } from './rag-metrics';
import { errorMessage } from '@docflow/service-kit';

export interface RagIndexerDeps {
  repo: RagIndexRepository;
  database: PublicApiDatabase;
  embedder: Embedder;
  /** This process's text extraction: a pending document is handed to it at once instead of waiting for its sweep. */
  textExtraction?: Pick<TextExtractionRunner, 'enqueue'>;
  logger: Logger;
  metrics: RagMetrics;
  /** How long a job waits for the document's text extraction. */
  textWaitMs: number;
  /** Poll interval while waiting for text. Default 500. */
  pollMs?: number;
  /** Deliveries before RabbitMQ dead-letters a job: the last one records the failure instead of throwing. */
  deliveryLimit: number;
  chunker?: ChunkerOptions;
}

/** Indexing cannot succeed for this document as it is: recorded as `failed` with this message, never retried. */
export class IndexFailure extends Error {
  override readonly name = 'IndexFailure';
}

/** The job is no longer the document's current one (re-enabled with force, deleted): stop quietly. */
class Superseded extends Error {}

/**
 * The consumer of rag_index_queue. Replica-safe: a job first claims its
 * document (only while it is the document's current job), and writes its
 * chunks in one transaction that checks that again under the row lock; a
 * redelivered or superseded job is a no-op. Expected failures (no text,
 * failed extraction) are recorded on the document; unexpected ones are
 * retried by the broker, and the last delivery records them.
 */
export class RagIndexer {
  private readonly stopping = new AbortController();

  constructor(private readonly deps: RagIndexerDeps) {}

  /** Aborts jobs waiting for text: they throw, and the broker puts them back for another replica. */
  stop(): void {
    this.stopping.abort();
  }

  readonly handle = async (job: RagIndexJobV1, meta: MessageMeta): Promise<void> => {
    const { repo, logger, metrics } = this.deps;
    const started = performance.now();
    const log = { documentId: job.document_id, ragJobId: job.job_id, deliveryCount: meta.deliveryCount };
    const claim = await repo.claim(job.document_id, job.job_id);
    if (!claim) {
      logger.debug('rag job skipped: not the current job of its document', log);
      metrics.indexJobs('skipped');
      return;
    }
    try {
      const count = await this.index(claim, job.job_id);
      metrics.indexJobs('completed');
      metrics.chunksWritten(count);
      metrics.indexDuration((performance.now() - started) / 1000);
      logger.info('document indexed for rag', { ...log, chunks: count, ms: Math.round(performance.now() - started) });
    } catch (err) {
      if (err instanceof Superseded) {
        metrics.indexJobs('skipped');
        return;
      }
      const message = errorMessage(err);
      if (err instanceof IndexFailure) {
        await repo.fail(job.document_id, job.job_id, err.message);
        metrics.indexJobs('failed');
        logger.warn('rag indexing failed', { ...log, reason: message });
        return;
      }
      if (!this.stopping.signal.aborted && meta.deliveryCount >= this.deps.deliveryLimit) {
        await repo.fail(job.document_id, job.job_id, `Indexing failed after ${meta.deliveryCount} attempts: ${message}`);
        metrics.indexJobs('failed');
        logger.error('rag indexing gave up', { ...log, error: message });
        return;
      }
      metrics.indexJobs('retried');
      throw err;
    }
  };

  private async index(claim: IndexClaim, jobId: string): Promise<number> {
    const text = await this.waitForText(claim, jobId);
    const chunks = chunkDocument({ text: text.text ?? '', pages: text.pages }, this.deps.chunker ?? DEFAULT_CHUNKER_OPTIONS);
    if (chunks.length === 0) throw new IndexFailure('The document has no text to index');
    // The title travels with each chunk into its embedding, as it does into its full-text vector.
    const embeddings = await this.deps.embedder.embed(
      chunks.map((c) => `${claim.title}\n${c.content}`),
      { signal: this.stopping.signal },
    );
    // An embeddings call cut short by shutdown must not leave the chunks without vectors: retried elsewhere.
    if (this.stopping.signal.aborted) throw new Error('shutting down while embedding');
    const written = await this.deps.repo.replaceChunks(
      claim,
      jobId,
      chunks.map((c, i) => ({ index: c.index, page: c.page, heading: c.heading, content: c.content, embedding: embeddings?.vectors[i] ?? null })),
      embeddings?.model ?? null,
    );
    if (!written) throw new Superseded();
    return chunks.length;
  }

  /** The document's extracted text, once extraction has finished; IndexFailure when there is none. */
  private async waitForText(claim: IndexClaim, jobId: string): Promise<DocumentTextResult> {
    const { database, textWaitMs } = this.deps;
    const pollMs = this.deps.pollMs ?? 500;
    const deadline = Date.now() + textWaitMs;
    let nudged = false;
    for (;;) {
      const text = await getDocumentText(database, claim.documentId, claim.ownerId);
      if (!text) throw new Superseded();
      switch (text.status) {
        case 'completed':
          return text;
        case 'failed':
          throw new IndexFailure(`Text extraction failed${text.error ? `: ${text.error}` : ''}`);
        case 'not_applicable':
          throw new IndexFailure(`The document (${text.mimeType}) has no extractable text`);
        case 'pending':
          if (!nudged) this.deps.textExtraction?.enqueue([claim.documentId]);
          nudged = true;
          break;
        case 'processing':
          break;
        default: {
          const unknown: never = text.status;
          throw new Error(`unknown text status ${String(unknown)}`);
        }
      }
      if (Date.now() + pollMs > deadline) {
        throw new IndexFailure(`The document's text was not extracted within ${Math.round(textWaitMs / 1000)} s; enable RAG again once its text is ready`);
      }
      await this.sleep(pollMs);
      if (!(await this.deps.repo.isCurrent(claim.documentId, jobId))) throw new Superseded();
    }
  }

  private sleep(ms: number): Promise<void> {
    const signal = this.stopping.signal;
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(new Error('shutting down while waiting for document text'));
      const onAbort = () => {
        clearTimeout(timer);
        reject(new Error('shutting down while waiting for document text'));
      };
      const timer = setTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}
