import { QUEUES } from '@docflow/contracts';
import { type Broker, declareResultsTopology } from '@docflow/messaging';

/**
 * Every queue the router publishes to or consumes from, with the default
 * delivery limit shared by all declarers, and the results exchange bound to
 * both results queues. Declared now when connected, and on every (re)connect.
 */
export async function declareRouterQueues(broker: Pick<Broker, 'assertWorkQueue' | 'assertFanoutExchange'>): Promise<void> {
  for (const queue of [QUEUES.workflow, QUEUES.extraction]) await broker.assertWorkQueue(queue);
  await declareResultsTopology(broker);
}
