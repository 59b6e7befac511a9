import type { Logger } from '@docflow/service-kit';
import type { WorkflowExecutionsRepository } from './workflow-executions.repository';
import { errorMessage } from '@docflow/service-kit';

export interface ExecutionReaperOptions {
  repo: WorkflowExecutionsRepository;
  logger: Logger;
  /** EXECUTION_LEASE_SECONDS: a running execution with no progress for this long is failed. */
  leaseSeconds: number;
  /** REAPER_INTERVAL_SECONDS. */
  intervalSeconds: number;
  /** Called after every pass with the ids it failed (metrics, tests). */
  onPass?: (failedIds: number[]) => void;
}

export interface ExecutionReaper {
  /** One pass now; resolves with the ids failed. */
  runOnce(): Promise<number[]>;
  /** Stops the timer and waits for a pass in progress. */
  stop(): Promise<void>;
}

/**
 * Fails running executions whose processor went silent (crashed, lost its
 * message, or never got the job): error `Execution lease expired: ...`,
 * error_type `timeout`. Each pass is one UPDATE, safe with any number of
 * replicas. A pass that is still running when the next tick comes is not
 * doubled.
 */
export function startExecutionReaper(options: ExecutionReaperOptions): ExecutionReaper {
  const { repo, logger, leaseSeconds } = options;
  let current: Promise<number[]> | undefined;

  const runOnce = (): Promise<number[]> => {
    current ??= repo
      .reapExpired(leaseSeconds)
      .then((reaped) => {
        for (const r of reaped) logger.warn('execution lease expired; marked failed', { executionId: r.id, idleSeconds: r.idleSeconds, leaseSeconds });
        const ids = reaped.map((r) => r.id);
        options.onPass?.(ids);
        return ids;
      })
      .finally(() => {
        current = undefined;
      });
    return current;
  };

  const tick = () => {
    runOnce().catch((err: unknown) => logger.warn('execution reaper pass failed', { error: errorMessage(err) }));
  };
  const timer = setInterval(tick, options.intervalSeconds * 1000);
  timer.unref();

  return {
    runOnce,
    async stop() {
      clearInterval(timer);
      await current?.catch(() => undefined);
    },
  };
}
