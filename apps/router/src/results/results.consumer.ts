import { QUEUES, RELAY_QUEUES, RESULT_DELIVERED_TO_HEADER, ResultMessage } from '@docflow/contracts';
import type { BatchHandler, BatchItem, Broker, ConsumerHandle } from '@docflow/messaging';
import type { Logger } from '@docflow/service-kit';
import type { RouterJobsRepository } from '../jobs/router-jobs.repository';
import type { RouterMetrics } from '../metrics';

export interface ResultsConsumerDeps {
  broker: Pick<Broker, 'consumeBatch' | 'publish'>;
  jobs: RouterJobsRepository;
  metrics: RouterMetrics;
  logger: Logger;
  prefetch?: number;
  /** How long a batch waits for more results (RESULTS_LINGER_MS); 0 when absent. */
  lingerMs?: number;
}

/**
 * What the router keeps of a result besides status and error. The resume
 * token is a secret for the execution's owner: the router never stores it.
 */
function resultOf(msg: ResultMessage): Record<string, unknown> {
  const { job_id: _jobId, status: _status, error: _error, correlation_token: _token, ...rest } = msg;
  return { ...rest };
}

/**
 * Handles a batch from `results_queue`: records every job's status in one
 * statement (monotonic, idempotent; RouterJobsRepository.applyResults) and
 * relays the unmarked messages to the public API's queue (a message whose
 * publisher put it there already carries RESULT_DELIVERED_TO_HEADER), all
 * at once: neither depends on the other, and the relays' confirms are
 * awaited together. The batch is acked only after both succeeded; when
 * either fails the consumer retries each message alone, and the repeat of
 * what succeeded is a no-op (the status update is guarded, the public API
 * ignores a result it already applied).
 */
export function createResultsHandler(deps: ResultsConsumerDeps): BatchHandler<ResultMessage> {
  const { broker, jobs, metrics, logger } = deps;
  const record = async (batch: readonly BatchItem<ResultMessage>[]) => {
    const outcomes = await jobs.applyResults(batch.map(({ msg }) => ({ jobId: msg.job_id, status: msg.status, result: resultOf(msg), error: msg.error ?? null })));
    const reported = new Map<string, string[]>();
    for (const { msg } of batch) {
      metrics.results.inc({ status: msg.status });
      reported.set(msg.job_id, [...(reported.get(msg.job_id) ?? []), msg.status]);
    }
    for (const [jobId, applied] of outcomes) {
      const statuses = reported.get(jobId);
      switch (applied.outcome) {
        case 'applied':
          logger.info('job status updated', { jobId, from: applied.from, reported: statuses });
          break;
        case 'ignored':
          logger.info('stale or duplicate result ignored', { jobId, current: applied.from, reported: statuses });
          break;
        case 'unknown':
          logger.warn('result for an unknown job; relaying it anyway', { jobId, reported: statuses });
          break;
        default: {
          const never: never = applied;
          throw new Error(`unexpected outcome ${JSON.stringify(never)}`);
        }
      }
    }
  };
  return async (batch) => {
    // Processors put their results on the public API's queue themselves (the results exchange) and say so; only unmarked results are relayed.
    const relays = batch
      .filter(({ meta }) => meta.headers[RESULT_DELIVERED_TO_HEADER] !== RELAY_QUEUES.publicApiResults)
      .map(({ msg, meta }) => broker.publish(RELAY_QUEUES.publicApiResults, ResultMessage, msg, { messageId: meta.messageId }));
    const outcomes = await Promise.allSettled([record(batch), ...relays]);
    const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
    if (failed) throw failed.reason;
  };
}

/** Subscribes the results handler in batches; queues must have been asserted (see `declareRouterQueues`). */
export function startResultsConsumer(deps: ResultsConsumerDeps): ConsumerHandle {
  return deps.broker.consumeBatch(QUEUES.results, ResultMessage, createResultsHandler(deps), { prefetch: deps.prefetch ?? 64, lingerMs: deps.lingerMs ?? 0 });
}
