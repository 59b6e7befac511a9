/** Every queue name in Docflow. The names of the three public queues are fixed by the runtime contract. */
export const QUEUES = {
  workflow: 'workflow_queue',
  extraction: 'extraction_queue',
  results: 'results_queue',
} as const;

/**
 * The public API's queue of results, the one way every result reaches its
 * owner (docs/decisions.md, "One path for every result"): processors publish
 * each result here themselves (ResultPublisher) and mark the results_queue
 * copy with RESULT_DELIVERED_TO_HEADER; the router, sole consumer of
 * `results_queue`, records every job's status and relays here only the
 * unmarked messages. Each result therefore arrives here by exactly one path.
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
