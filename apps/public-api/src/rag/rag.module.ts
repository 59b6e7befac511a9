import { DEFAULT_DELIVERY_LIMIT } from '@docflow/contracts';
import { createLlmClient, type LlmClient } from '@docflow/llm-client';
import type { Broker, ConsumerHandle } from '@docflow/messaging';
import type { TextExtractionRunner } from '../documents';
import type { PlatformServices } from '../platform';
import { Embedder } from './embedder';
import { RagIndexer } from './rag-indexer';
import { RAG_INDEX_QUEUE, RagIndexJobV1 } from './rag-index-job';
import { pgvectorProbe, RagIndexRepository } from './rag-index.repository';
import { createRagMetrics } from './rag-metrics';
import { DEFAULT_RETRIEVAL_SETTINGS, RagRetrievalRepository, type RetrievalSettings } from './rag-retrieval.repository';
import { createRagFeature } from './rag.feature';
import { type RagJobPublisher, RagService } from './rag.service';

export type RagBroker = Pick<Broker, 'assertWorkQueue' | 'consume' | 'publish'>;

export interface RagModuleDeps extends Pick<PlatformServices, 'config' | 'database' | 'logger' | 'metrics'> {
  /** Without a broker, enabling answers 503 and nothing is consumed. */
  broker?: RagBroker;
  /** This process's text extraction (pending documents are handed to it). */
  textExtraction?: Pick<TextExtractionRunner, 'enqueue'>;
  /** Default: the LLM service at LLM_SERVICE_URL. */
  llm?: LlmClient;
  retrieval?: RetrievalSettings;
  /** Clock of signed URLs (tests). */
  now?: () => number;
}

export interface RagModule {
  /** The routes; the app binds them to the guards and the OpenAPI registry. */
  feature: ReturnType<typeof createRagFeature>;
  service: RagService;
  indexer: RagIndexer;
  index: RagIndexRepository;
  retrieval: RagRetrievalRepository;
  /** Declares rag_index_queue and consumes it with prefetch RAG_INDEX_CONCURRENCY (main; tests that index). */
  start(): Promise<void>;
  /** Stops consuming, puts back jobs waiting for text, and waits (bounded) for jobs in flight. */
  stop(timeoutMs?: number): Promise<void>;
}

/** Publishes indexing jobs, declaring the queue (and its dead-letter queue) before the first one. */
function brokerPublisher(broker: RagBroker): RagJobPublisher {
  let declared: Promise<void> | undefined;
  return {
    async publish(job) {
      declared ??= broker.assertWorkQueue(RAG_INDEX_QUEUE).catch((err: unknown) => {
        declared = undefined;
        throw err;
      });
      await declared;
      await broker.publish(RAG_INDEX_QUEUE, RagIndexJobV1, job, { messageId: job.job_id });
    },
  };
}

/**
 * RAG in the public API: the routes, the indexing worker (a consumer of
 * rag_index_queue in this process, next to the documents' text and the
 * chunks it writes), and the answers.
 */
export function createRagModule(deps: RagModuleDeps): RagModule {
  const { config, database } = deps;
  const logger = deps.logger.child({ component: 'rag' });
  const metrics = createRagMetrics(deps.metrics);
  const llm = deps.llm ?? createLlmClient({ baseUrl: config.LLM_SERVICE_URL, serviceKey: config.SERVICE_KEY, timeoutMs: config.RAG_ANSWER_TIMEOUT_SECONDS * 1000, logger });
  const pgvector = pgvectorProbe(database);
  const settings = deps.retrieval ?? DEFAULT_RETRIEVAL_SETTINGS;
  const index = new RagIndexRepository(database, pgvector);
  const retrieval = new RagRetrievalRepository(database, settings, pgvector);
  const embedder = new Embedder(llm, { enabled: config.RAG_EMBEDDINGS, batchSize: config.RAG_EMBEDDING_BATCH, modelType: config.RAG_MODEL_TYPE, logger });
  const service = new RagService({
    index,
    retrieval,
    publisher: deps.broker ? brokerPublisher(deps.broker) : null,
    embedder,
    llm,
    config,
    logger,
    metrics,
    rrfK: settings.rrfK,
    now: deps.now,
  });
  const indexer = new RagIndexer({
    repo: index,
    database,
    embedder,
    textExtraction: deps.textExtraction,
    logger,
    metrics,
    textWaitMs: config.RAG_TEXT_WAIT_SECONDS * 1000,
    deliveryLimit: DEFAULT_DELIVERY_LIMIT,
  });
  let consumer: ConsumerHandle | undefined;
  return {
    feature: createRagFeature(service),
    service,
    indexer,
    index,
    retrieval,
    async start() {
      if (consumer) return;
      if (!deps.broker) throw new Error('the RAG indexing worker needs a message broker');
      await deps.broker.assertWorkQueue(RAG_INDEX_QUEUE);
      consumer = deps.broker.consume(RAG_INDEX_QUEUE, RagIndexJobV1, indexer.handle, { prefetch: config.RAG_INDEX_CONCURRENCY });
    },
    async stop(timeoutMs = 10000) {
      const active = consumer;
      consumer = undefined;
      indexer.stop();
      if (active) await active.cancel(timeoutMs);
      if (!deps.llm) llm.close();
    },
  };
}
