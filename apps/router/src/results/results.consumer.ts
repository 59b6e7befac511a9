import { QUEUES, RELAY_QUEUES, RESULT_DELIVERED_TO_HEADER, ResultMessage } from '@docflow/contracts';
import type { Broker, ConsumerHandle, MessageMeta } from '@docflow/messaging';
import type { Logger } from '@docflow/service-kit';
import type { RouterJobsRepository } from '../jobs/router-jobs.repository';
import type { RouterMetrics } from '../metrics';

export interface ResultsConsumerDeps {
  broker: Pick<Broker, 'consume' | 'publish'>;
  jobs: RouterJobsRepository;
  metrics: RouterMetrics;
  logger: Logger;
  prefetch?: number;
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
 * Handles one message from `results_queue`: records the job's status
 * (monotonic, idempotent) and relays the same message to the public API's
 * queue (unless its publisher already put it there: RESULT_DELIVERED_TO_HEADER),
 * both at once: neither depends on the other, and running them side
 * by side takes a database round trip off every result's way to the
 * execution record. The message is acked only after both succeeded; when
 * either fails it is retried, and the repeat of the one that succeeded is a
 * no-op (the status update is guarded, the public API ignores a result it
 * already applied).
 */
export function createResultsHandler(deps: ResultsConsumerDeps): (msg: ResultMessage, meta: MessageMeta) => Promise<void> {
  const { broker, jobs, metrics, logger } = deps;
  const record = async (msg: ResultMessage) => {
    const applied = await jobs.applyResult(msg.job_id, { status: msg.status, result: resultOf(msg), error: msg.error ?? null });
    metrics.results.inc({ status: msg.status });
    switch (applied.outcome) {
      case 'applied':
        logger.info('job status updated', { jobId: msg.job_id, from: applied.from, to: msg.status });
        break;
      case 'ignored':
        logger.info('stale or duplicate result ignored', { jobId: msg.job_id, current: applied.from, reported: msg.status });
        break;
      case 'unknown':
        logger.warn('result for an unknown job; relaying it anyway', { jobId: msg.job_id, status: msg.status });
        break;
      default: {
        const never: never = applied;
        throw new Error(`unexpected outcome ${JSON.stringify(never)}`);
      }
    }
  };
  return async (msg, meta) => {
    // Processors put their results on the public API's queue themselves and say so; only unmarked results are relayed.
    const delivered = meta.headers[RESULT_DELIVERED_TO_HEADER] === RELAY_QUEUES.publicApiResults;
    const relay = delivered ? Promise.resolve() : broker.publish(RELAY_QUEUES.publicApiResults, ResultMessage, msg, { messageId: meta.messageId });
    const outcomes = await Promise.allSettled([record(msg), relay]);
    const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
    if (failed) throw failed.reason;
  };
}

/** Subscribes the results handler; queues must have been asserted (see `declareRouterQueues`). */
export function startResultsConsumer(deps: ResultsConsumerDeps): ConsumerHandle {
  return deps.broker.consume(QUEUES.results, ResultMessage, createResultsHandler(deps), { prefetch: deps.prefetch ?? 16 });
}
