import { QUEUES } from '@docflow/contracts';
import { type Broker, declareResultsTopology } from '@docflow/messaging';

/**
 * The queue the processor consumes from and the results exchange with both
 * results queues it publishes to, declared now and on every reconnect (a
 * publish that reaches no queue is refused).
 */
export async function declareWorkflowQueues(broker: Pick<Broker, 'assertWorkQueue' | 'assertFanoutExchange'>): Promise<void> {
  await broker.assertWorkQueue(QUEUES.workflow);
  await declareResultsTopology(broker);
}
