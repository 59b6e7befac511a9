import { startPeriodic } from '@docflow/persistence';
import type { Logger } from '@docflow/service-kit';
import { errorMessage } from '@docflow/service-kit';

/** One periodic clean-up; resolves with what it removed, by kind. */
export interface HousekeepingTask {
  name: string;
  run(): Promise<Record<string, number>>;
}

/**
 * Runs every task now and then every intervalMs, one round at a time (a round still running is not doubled); a
 * failing task is logged and the others still run. `stop()` waits for a
 * round in progress. Safe with replicas when the tasks are plain deletes.
 */
export function startHousekeeping(tasks: readonly HousekeepingTask[], logger: Logger, intervalMs = 10 * 60_000): { stop(): Promise<void> } {
  const runTask = (task: HousekeepingTask) =>
    task.run().then(
      (removed) => {
        if (Object.values(removed).some((n) => n > 0)) logger.debug(`housekeeping: ${task.name}`, removed);
      },
      (err: unknown) => logger.warn(`housekeeping: ${task.name} failed`, { error: errorMessage(err) }),
    );
  return startPeriodic(async () => {
    for (const task of tasks) await runTask(task);
  }, intervalMs);
}
