import { JobMessageV1, QUEUES } from '@docflow/contracts';
import type { ContentClient, LlmClient } from '@docflow/llm-client';
import { declareResultsTopology, JobWorker, ResultPublisher, type Broker } from '@docflow/messaging';
import type { Logger } from '@docflow/service-kit';
import type { ExtractionProcessorConfig } from './config';
import { ExtractionJobRunner } from './jobs/job-handlers';
import type { ExtractionMetrics } from './metrics';

export type ExtractionSettings = Pick<
  ExtractionProcessorConfig,
  'EXTRACTION_PREFETCH' | 'EXTRACTION_DOCUMENT_CONCURRENCY' | 'EXTRACTION_MAX_DOCUMENTS' | 'DOCUMENT_TEXT_MAX_CHARS' | 'INTERNAL_SERVICE_JWT_SECRET'
>;

export interface ExtractionProcessorDeps {
  config: ExtractionSettings;
  broker: Pick<Broker, 'consume' | 'publish'>;
  llm: LlmClient;
  content: ContentClient;
  metrics: ExtractionMetrics;
  logger: Logger;
}

export interface ExtractionProcessor {
  readonly runner: ExtractionJobRunner;
  /** Subscribes to extraction_queue with the configured prefetch (the queues must have been asserted). */
  start(): void;
  /**
   * Stops consuming, lets running jobs finish for up to `drainMs`, then
   * closes the consumer channel (unfinished jobs go back to the queue) and
   * stops what still runs without publishing a result.
   */
  stop(drainMs: number, settleMs?: number): Promise<void>;
}

/** Declares the queues the processor uses (durable, with their dead-letter queues) and the results exchange it publishes to. */
export async function declareExtractionQueues(broker: Pick<Broker, 'assertWorkQueue' | 'assertFanoutExchange'>): Promise<void> {
  await broker.assertWorkQueue(QUEUES.extraction);
  await declareResultsTopology(broker);
}

export function createExtractionProcessor(deps: ExtractionProcessorDeps): ExtractionProcessor {
  const { config, broker } = deps;
  // Like every processor: to the public API's queue and, marked as delivered there, to results_queue.
  const results = new ResultPublisher(broker);
  const runner = new ExtractionJobRunner({
    services: { llm: deps.llm, content: deps.content, documentConcurrency: config.EXTRACTION_DOCUMENT_CONCURRENCY, maxTextChars: config.DOCUMENT_TEXT_MAX_CHARS },
    publish: (result) => results.publish(result),
    metrics: deps.metrics,
    logger: deps.logger,
    maxDocuments: config.EXTRACTION_MAX_DOCUMENTS,
    jobUserSecret: config.INTERNAL_SERVICE_JWT_SECRET,
  });
  const worker = new JobWorker({
    broker,
    queue: QUEUES.extraction,
    message: JobMessageV1,
    handle: runner.handle,
    prefetch: config.EXTRACTION_PREFETCH,
    jobs: runner.jobs,
    shutdownReason: ExtractionJobRunner.shutdownReason,
  });
  return {
    runner,
    start: () => worker.start(),
    stop: (drainMs, settleMs) => worker.stop(drainMs, settleMs),
  };
}
