/** Every queue name in Docflow. The names of the three public queues are fixed by the runtime contract. */
export const QUEUES = {
  workflow: 'workflow_queue',
  extraction: 'extraction_queue',
  results: 'results_queue',
} as const;

/**
 * Internal relay: the router, sole consumer of `results_queue`, records each
 * job's status and then forwards the same result message here for the public
 * API, which writes it into the execution record.
 */
export const RELAY_QUEUES = {
  publicApiResults: 'public_api_results_queue',
} as const;

export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];

/** Dead-letter queue of a work queue: where rejected and over-delivered messages go. */
export function deadLetterQueueOf(queue: string): string {
  return `${queue}.dlq`;
}

/** How many deliveries a message gets before it is dead-lettered. */
export const DEFAULT_DELIVERY_LIMIT = 5;
