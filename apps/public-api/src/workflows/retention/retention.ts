import { pruneInBatches, type RetentionBatches } from '@docflow/persistence';
import type { PublicApiDatabase } from '../../platform';
import { RetentionRepository } from './retention.repository';

/** What one retention pass removed, by kind. */
export interface RetentionRemoved extends Record<string, number> {
  executions: number;
  steps: number;
  eventLogs: number;
}

/**
 * The workflows module's retention (issue #15 item 5): finished executions,
 * their steps, and settled event logs older than EXECUTION_RETENTION_DAYS.
 * Executions still queued, running or awaiting input are never touched,
 * whatever their age.
 */
export function executionRetention(ds: PublicApiDatabase, days: number, batches?: RetentionBatches): { run(): Promise<RetentionRemoved> } {
  const repo = new RetentionRepository(ds);
  return {
    async run() {
      let steps = 0;
      const executions = await pruneInBatches(async (n) => {
        const removed = await repo.pruneExecutionsBatch(days, n);
        steps += removed.steps;
        return removed.executions;
      }, batches);
      const eventLogs = await pruneInBatches((n) => repo.pruneEventLogsBatch(days, n), batches);
      return { executions, steps, eventLogs };
    },
  };
}
