/** Every queue name in Docflow. The names of the three public queues are fixed by the runtime contract. */
export const QUEUES = {
  workflow: 'workflow_queue',
  extraction: 'extraction_queue',
  results: 'results_queue',
} as const;

/**
 * Internal relay: the router, sole consumer of `results_queue`, records each
 * job's status and forwards the same result message here for the public
 * API, which writes it into the execution record. The workflow processor
 * publishes its results here itself as well (marked with
 * RESULT_DELIVERED_TO_HEADER on the results_queue copy), so that they reach
 * the execution record without waiting for the router.
 */
export const RELAY_QUEUES = {
  publicApiResults: 'public_api_results_queue',
} as const;

/**
 * Header of a results_queue message whose publisher already put the same
 * message on the queue it names; the router then records it without
 * relaying it there again.
 */
export const RESULT_DELIVERED_TO_HEADER = 'x-docflow-delivered-to';

export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];

/** Dead-letter queue of a work queue: where rejected and over-delivered messages go. */
export function deadLetterQueueOf(queue: string): string {
  return `${queue}.dlq`;
}

/** How many deliveries a message gets before it is dead-lettered. */
export const DEFAULT_DELIVERY_LIMIT = 5;
