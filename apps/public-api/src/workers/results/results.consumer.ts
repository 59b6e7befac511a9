import { RELAY_QUEUES, ResultMessage } from '@docflow/contracts';
import type { Broker, ConsumerHandle } from '@docflow/messaging';

export interface ResultsConsumerDeps {
  broker: Pick<Broker, 'assertWorkQueue' | 'consume'>;
  /** Where each message goes: the ResultDispatcher (a handler per job family), or one family's handler in tests. */
  results: { apply(msg: ResultMessage): Promise<unknown> };
  prefetch?: number;
}

/**
 * Consumes `public_api_results_queue`, the one way every result reaches the
 * public API (docs/decisions.md, "One path for every result"): each message
 * is validated as a ResultMessage by the broker, applied by its job family's
 * handler in one statement or transaction, and acked only after that
 * committed. A result for an unknown or finished job is acked and changes
 * nothing; a failure (database down) requeues the message until the
 * delivery limit.
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
