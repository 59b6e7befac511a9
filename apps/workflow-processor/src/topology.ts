import { QUEUES } from '@docflow/contracts';
import type { Broker } from '@docflow/messaging';

/** The queues the processor consumes from and publishes to, declared now and on every reconnect. */
export async function declareWorkflowQueues(broker: Pick<Broker, 'assertWorkQueue'>): Promise<void> {
  for (const queue of [QUEUES.workflow, QUEUES.results]) await broker.assertWorkQueue(queue);
}
