import { QUEUES, RELAY_QUEUES } from '@docflow/contracts';
import type { Broker } from '@docflow/messaging';

/**
 * Every queue the router publishes to or consumes from, with the default
 * delivery limit shared by all declarers. Declared now when connected, and on
 * every (re)connect.
 */
export async function declareRouterQueues(broker: Pick<Broker, 'assertWorkQueue'>): Promise<void> {
  for (const queue of [QUEUES.workflow, QUEUES.extraction, QUEUES.results, RELAY_QUEUES.publicApiResults]) {
    await broker.assertWorkQueue(queue);
  }
}
