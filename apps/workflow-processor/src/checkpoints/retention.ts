import { pruneInBatches, type RetentionBatches } from '@docflow/persistence';
import type { NodeRunsRepository } from './node-runs.repository';
import type { WakeupsRepository } from '../parking/wakeups.repository';

export interface ProcessorRetentionDeps {
  nodeRuns: Pick<NodeRunsRepository, 'pruneBatch'>;
  wakeups: Pick<WakeupsRepository, 'pruneBatch'>;
  /** EXECUTION_RETENTION_DAYS. */
  days: number;
  batches?: RetentionBatches;
}

/**
 * One retention pass over the processor's own tables (issue #15 item 5):
 * checkpoints and wake-up rows older than EXECUTION_RETENTION_DAYS, in
 * batches. The public API prunes the executions and their timelines, the
 * router its jobs; each service owns its tables.
 */
export async function pruneProcessorTables(deps: ProcessorRetentionDeps): Promise<{ nodeRuns: number; wakeups: number }> {
  const nodeRuns = await pruneInBatches((n) => deps.nodeRuns.pruneBatch(deps.days, n), deps.batches);
  const wakeups = await pruneInBatches((n) => deps.wakeups.pruneBatch(deps.days, n), deps.batches);
  return { nodeRuns, wakeups };
}
