import { JobMessageV1, QUEUES } from '@docflow/contracts';
import type { Broker } from '@docflow/messaging';
import { errorMessage, type Logger } from '@docflow/service-kit';
import type { ParkStore } from './park-store';

export interface WakerOptions {
  store: Pick<ParkStore, 'wakeDue'>;
  broker: Pick<Broker, 'publish'>;
  logger: Logger;
  /** WAKE_POLL_INTERVAL_MS: how often this replica looks for due wake-ups. */
  intervalMs: number;
  /** Wake-ups claimed per statement. */
  batch?: number;
  /** Called after every pass with the number woken (tests). */
  onPass?: (woken: number) => void;
}

export interface Waker {
  /** One pass now (again while a full batch came back); resolves with the number woken. */
  runOnce(): Promise<number>;
  /** Stops the timer and waits for a pass in progress. */
  stop(): Promise<void>;
}

/**
 * Re-publishes the jobs of parked runs when they are due (issue #15 item 3).
 * Every replica runs one; `FOR UPDATE SKIP LOCKED` shares the due rows, and
 * the job goes back to workflow_queue as a new message (its delivery count
 * starts again, so parking never counts towards the dead-letter limit).
 */
export function startWaker(options: WakerOptions): Waker {
  const batch = options.batch ?? 50;
  const { logger } = options;
  let current: Promise<number> | undefined;
  let stopped = false;

  const publish = async ({ executionKey, job }: { executionKey: string; job: JobMessageV1 }) => {
    await options.broker.publish(QUEUES.workflow, JobMessageV1, job, { messageId: job.job_id });
    logger.debug('parked run woken', { executionKey, jobId: job.job_id });
  };

  const runOnce = (): Promise<number> => {
    current ??= (async () => {
      let total = 0;
      for (;;) {
        const n = await options.store.wakeDue(batch, publish);
        total += n;
        if (n < batch || stopped) break;
      }
      options.onPass?.(total);
      return total;
    })().finally(() => {
      current = undefined;
    });
    return current;
  };

  // Logged when passes start failing (broker or database down), not on every tick of the outage.
  let failing = false;
  const timer = setInterval(() => {
    runOnce().then(
      () => {
        if (failing) logger.info('wake-up passes work again');
        failing = false;
      },
      (err: unknown) => {
        if (!failing) logger.warn('wake-up pass failed; the wake-ups stay due', { error: errorMessage(err) });
        failing = true;
      },
    );
  }, options.intervalMs);
  timer.unref();

  return {
    runOnce,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await current?.catch(() => undefined);
    },
  };
}
