import { RELAY_QUEUES, ResultMessage } from '@docflow/contracts';
import { type Broker, type ConsumerHandle, declareResultsTopology } from '@docflow/messaging';

export interface ResultsConsumerDeps {
  broker: Pick<Broker, 'assertWorkQueue' | 'assertFanoutExchange' | 'consumeBatch'>;
  /** Where each batch goes: the ResultDispatcher (a handler per job family, one transaction per batch). */
  results: { applyBatch(msgs: readonly ResultMessage[]): Promise<unknown> };
  prefetch?: number;
}

/**
 * Consumes `public_api_results_queue`, the one way every result reaches the
 * public API (docs/decisions.md, "One path for every result"), in batches:
 * each message is validated as a ResultMessage by the broker, every message
 * the prefetch window holds that has arrived is applied in one transaction
 * by its job family's handler (guarded statements), and the batch is acked
 * with one multiple-ack only after that committed; the commit's NOTIFYs wake
 * long polls and event streams. A result for an unknown or finished job is
 * acked and changes nothing. When a batch fails, each message is applied
 * alone, so one bad message does not hold the others; a failure (database
 * down) requeues the message until the delivery limit.
 */
export async function startResultsConsumer(deps: ResultsConsumerDeps): Promise<ConsumerHandle> {
  await declareResultsTopology(deps.broker);
  return deps.broker.consumeBatch(
    RELAY_QUEUES.publicApiResults,
    ResultMessage,
    async (batch) => {
      await deps.results.applyBatch(batch.map((b) => b.msg));
    },
    { prefetch: deps.prefetch ?? 64 },
  );
}
