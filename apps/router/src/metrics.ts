import client, { type Counter } from 'prom-client';
import { deadLetterQueueOf, QUEUES, RELAY_QUEUES } from '@docflow/contracts';
import type { Metrics } from '@docflow/service-kit';

export interface RouterMetrics {
  jobsSubmitted: Counter<'job_type'>;
  results: Counter<'status'>;
}

export function createRouterMetrics(metrics: Metrics): RouterMetrics {
  return {
    jobsSubmitted: metrics.counter('router_jobs_submitted_total', 'Jobs accepted and queued, by job type', ['job_type']),
    results: metrics.counter('router_results_total', 'Results messages consumed, by reported status', ['status']),
  };
}

/** Every dead-letter queue of the platform's work queues. */
export const DEAD_LETTER_QUEUES = [QUEUES.workflow, QUEUES.extraction, QUEUES.results, RELAY_QUEUES.publicApiResults].map(deadLetterQueueOf);

/**
 * `queue_dead_letter_messages{queue}`: messages waiting in each dead-letter
 * queue, read from the broker (a passive declare) when /metrics is scraped.
 * A queue the broker cannot answer for (not connected) is left out. Across
 * router workers the gauge is the maximum, not the sum: they all see one queue.
 */
export function registerDeadLetterGauge(metrics: Metrics, depthOf: (queue: string) => Promise<number>): client.Gauge<'queue'> {
  return new client.Gauge({
    name: 'queue_dead_letter_messages',
    help: 'Messages in each dead-letter queue (<queue>.dlq), read from the broker at scrape time',
    labelNames: ['queue'],
    registers: [metrics.registry],
    aggregator: 'max',
    async collect() {
      this.reset();
      await Promise.all(
        DEAD_LETTER_QUEUES.map(async (queue) => {
          try {
            this.set({ queue }, await depthOf(queue));
          } catch {
            /* broker down: no sample rather than a wrong one */
          }
        }),
      );
    },
  });
}
