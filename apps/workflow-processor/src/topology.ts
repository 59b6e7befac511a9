import { QUEUES, RELAY_QUEUES } from '@docflow/contracts';
import type { Broker } from '@docflow/messaging';

/**
 * The queues the processor consumes from and publishes to, declared now and
 * on every reconnect; the public API's results queue too, since results are
 * published there directly (a publish to a missing queue is refused).
 */
export async function declareWorkflowQueues(broker: Pick<Broker, 'assertWorkQueue'>): Promise<void> {
  for (const queue of [QUEUES.workflow, QUEUES.results, RELAY_QUEUES.publicApiResults]) await broker.assertWorkQueue(queue);
}
