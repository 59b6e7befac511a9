import { JobMessageV1, QUEUES, ResultMessage } from '@docflow/contracts';
import type { ContentClient, LlmClient } from '@docflow/llm-client';
import type { Broker, ConsumerHandle } from '@docflow/messaging';
import type { Logger } from '@docflow/service-kit';
import type { ExtractionProcessorConfig } from './config';
import { ExtractionJobRunner } from './jobs/job-handlers';
import type { ExtractionMetrics } from './metrics';

export type ExtractionSettings = Pick<ExtractionProcessorConfig, 'EXTRACTION_PREFETCH' | 'EXTRACTION_DOCUMENT_CONCURRENCY' | 'EXTRACTION_MAX_DOCUMENTS' | 'DOCUMENT_TEXT_MAX_CHARS' | 'INTERNAL_SERVICE_JWT_SECRET'>;

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

/** Declares the queues the processor uses (durable, with their dead-letter queues). */
export async function declareExtractionQueues(broker: Pick<Broker, 'assertWorkQueue'>): Promise<void> {
  await broker.assertWorkQueue(QUEUES.extraction);
  await broker.assertWorkQueue(QUEUES.results);
}

export function createExtractionProcessor(deps: ExtractionProcessorDeps): ExtractionProcessor {
  const { config, broker } = deps;
  const runner = new ExtractionJobRunner({
    services: { llm: deps.llm, content: deps.content, documentConcurrency: config.EXTRACTION_DOCUMENT_CONCURRENCY, maxTextChars: config.DOCUMENT_TEXT_MAX_CHARS },
    publish: (result) => broker.publish(QUEUES.results, ResultMessage, result, { messageId: `${result.job_id}:${result.status}:${result.sequence ?? 0}` }),
    metrics: deps.metrics,
    logger: deps.logger,
    maxDocuments: config.EXTRACTION_MAX_DOCUMENTS,
    jobUserSecret: config.INTERNAL_SERVICE_JWT_SECRET,
  });
  let consumer: ConsumerHandle | undefined;
  return {
    runner,
    start() {
      if (consumer) return;
      consumer = broker.consume(QUEUES.extraction, JobMessageV1, runner.handle, { prefetch: config.EXTRACTION_PREFETCH });
    },
    async stop(drainMs, settleMs = 2000) {
      const active = consumer;
      consumer = undefined;
      if (active) await active.cancel(drainMs);
      runner.abortAll();
      await runner.idle(settleMs);
    },
  };
}
