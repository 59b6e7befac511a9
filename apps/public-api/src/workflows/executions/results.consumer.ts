import { RELAY_QUEUES, ResultMessage } from '@docflow/contracts';
import type { Broker, ConsumerHandle } from '@docflow/messaging';
import type { ExecutionResultsService } from './execution-results.service';

export interface ResultsConsumerDeps {
  broker: Pick<Broker, 'assertWorkQueue' | 'consume'>;
  results: Pick<ExecutionResultsService, 'apply'>;
  prefetch?: number;
}

/**
 * Consumes the results the router relays (RELAY_QUEUES.publicApiResults):
 * each message is validated as a ResultMessage by the broker, applied in one
 * transaction, and acked only after that committed. Unknown executions and
 * non-workflow jobs are acked and dropped (logged); a failure (database down)
 * requeues the message until the delivery limit.
 */
export async function startResultsConsumer(deps: ResultsConsumerDeps): Promise<ConsumerHandle> {
  await deps.broker.assertWorkQueue(RELAY_QUEUES.publicApiResults);
  return deps.broker.consume(
    RELAY_QUEUES.publicApiResults,
    ResultMessage,
    async (msg) => {
      await deps.results.apply(msg);
    },
    { prefetch: deps.prefetch ?? 16 },
  );
}
