/** Every queue name in Docflow. The names of the three public queues are fixed by the runtime contract. */
export const QUEUES = {
  workflow: 'workflow_queue',
  extraction: 'extraction_queue',
  results: 'results_queue',
} as const;

/**
 * The public API's queue of results, the one way every result reaches its
 * owner (docs/decisions.md, "One path for every result"): processors publish
 * each result once to RESULTS_EXCHANGE, which routes it to this queue and to
 * `results_queue`, marked with RESULT_DELIVERED_TO_HEADER; the router, sole
 * consumer of `results_queue`, records every job's status and relays here
 * only the unmarked messages (published straight to `results_queue`). Each
 * result therefore arrives here by exactly one path.
 */
export const RELAY_QUEUES = {
  publicApiResults: 'public_api_results_queue',
} as const;

/**
 * Durable fanout exchange of results, bound to `results_queue` and
 * `public_api_results_queue`: one publish (one confirm) puts a result on
 * both. Declared, with both queues and bindings, by every service that
 * publishes or consumes results.
 */
export const RESULTS_EXCHANGE = 'docflow.results';

/**
 * Header of a result whose publisher put it on the public API's queue
 * itself (through RESULTS_EXCHANGE); the router then records it without
 * relaying it there again.
 */
export const RESULT_DELIVERED_TO_HEADER = 'x-docflow-delivered-to';

/**
 * The public API's own work queues: RAG indexing jobs, and the event bus's
 * drive reads. Declared and consumed by the public API only; named here so
 * the router can export their depths (docs/decisions.md, "Queue and
 * dead-letter depths from the router").
 */
export const PUBLIC_API_QUEUES = {
  ragIndex: 'rag_index_queue',
  eventBus: 'event_bus_queue',
} as const;

export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];

/** Dead-letter queue of a work queue: where rejected and over-delivered messages go. */
export function deadLetterQueueOf(queue: string): string {
  return `${queue}.dlq`;
}

/** How many deliveries a message gets before it is dead-lettered. */
export const DEFAULT_DELIVERY_LIMIT = 5;
