import { deadLetterQueueOf, PUBLIC_API_QUEUES, QUEUES, RELAY_QUEUES } from '@docflow/contracts';
import type { Broker } from '@docflow/messaging';
import { errorMessage, type Logger, type Metrics } from '@docflow/service-kit';

/** The work queues whose depth, and whose dead-letter queue's depth, the router exports: every work queue of Docflow. */
export const WATCHED_QUEUES: readonly string[] = [QUEUES.workflow, QUEUES.extraction, QUEUES.results, RELAY_QUEUES.publicApiResults, PUBLIC_API_QUEUES.ragIndex, PUBLIC_API_QUEUES.eventBus];

export interface QueueDepthOptions {
  broker: Pick<Broker, 'checkQueue'>;
  metrics: Metrics;
  logger: Logger;
  /** QUEUE_METRICS_INTERVAL_MS. */
  intervalMs: number;
  queues?: readonly string[];
}

export interface QueueDepths {
  /** One reading now; resolves when every gauge is set (or reset on a failure). */
  refresh(): Promise<void>;
  stop(): void;
}

/**
 * Queue depths on /metrics (issue #15 item 1, issue #18 item 6):
 * `docflow_queue_messages{queue}` (messages ready on each work queue),
 * `docflow_queue_consumers{queue}` and `docflow_queue_dlq_messages{queue}`
 * (messages in that queue's dead-letter queue, labelled with the work
 * queue's name), read with a passive declare every interval rather than at
 * scrape time, so a scrape never waits for the broker. A queue that cannot
 * be read (broker down, queue not declared yet) loses its series until it
 * can: a stale depth would read as a healthy one. Every router replica
 * exports the same values; dashboards take `max by (queue)`, and the
 * primary of a clustered router (ROUTER_REPLICAS) takes the maximum of its
 * workers, not the sum.
 */
export function startQueueDepths(options: QueueDepthOptions): QueueDepths {
  const queues = options.queues ?? WATCHED_QUEUES;
  const ready = options.metrics.gauge('docflow_queue_messages', 'Messages ready on a work queue (read by the router)', ['queue'], 'max');
  const consumers = options.metrics.gauge('docflow_queue_consumers', 'Consumers subscribed to a work queue (read by the router)', ['queue'], 'max');
  const dead = options.metrics.gauge('docflow_queue_dlq_messages', "Messages in a work queue's dead-letter queue (read by the router)", ['queue'], 'max');
  let failing = false;

  const read = async (queue: string): Promise<void> => {
    try {
      const stats = await options.broker.checkQueue(queue);
      ready.set({ queue }, stats.messageCount);
      consumers.set({ queue }, stats.consumerCount);
    } catch (err) {
      ready.remove({ queue });
      consumers.remove({ queue });
      throw err;
    }
    try {
      dead.set({ queue }, (await options.broker.checkQueue(deadLetterQueueOf(queue))).messageCount);
    } catch (err) {
      dead.remove({ queue });
      throw err;
    }
  };

  const refresh = async (): Promise<void> => {
    const outcomes = await Promise.allSettled(queues.map(read));
    const failed = outcomes.flatMap((o, i) => (o.status === 'rejected' ? [`${queues[i]}: ${errorMessage(o.reason)}`] : []));
    // Logged when reading starts failing, not on every tick of a broker outage.
    if (failed.length && !failing) options.logger.warn('queue depths could not be read', { failed });
    failing = failed.length > 0;
  };

  let running: Promise<void> | undefined;
  const tick = () => {
    running ??= refresh().finally(() => (running = undefined));
  };
  const timer = setInterval(tick, options.intervalMs);
  timer.unref();
  tick();
  return { refresh, stop: () => clearInterval(timer) };
}
