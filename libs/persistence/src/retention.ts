/**
 * Retention (issue #15 item 5): old rows go in small batches, each its own
 * short statement, so that pruning never holds a table's locks for long and
 * a replica running the same pass at the same time only shares the work.
 */
export interface RetentionBatches {
  /** Rows per statement (1000). */
  batchSize: number;
  /** Statements per pass at most (50); what is left waits for the next pass. */
  maxBatches: number;
}

export const DEFAULT_RETENTION_BATCHES: Readonly<RetentionBatches> = Object.freeze({ batchSize: 1000, maxBatches: 50 });

/** Runs `deleteBatch(batchSize)` until it removes fewer than batchSize rows or maxBatches ran; resolves with the total removed. */
export async function pruneInBatches(deleteBatch: (batchSize: number) => Promise<number>, batches: RetentionBatches = DEFAULT_RETENTION_BATCHES): Promise<number> {
  let total = 0;
  for (let i = 0; i < batches.maxBatches; i += 1) {
    const n = await deleteBatch(batches.batchSize);
    total += n;
    if (n < batches.batchSize) break;
  }
  return total;
}

/** Runs `pass` now and every `intervalMs` (one at a time); `stop()` waits for a pass in progress. */
export function startPeriodic(pass: () => Promise<void>, intervalMs: number): { stop(): Promise<void> } {
  let running: Promise<void> | undefined;
  const tick = () => {
    running ??= pass()
      .catch(() => undefined)
      .finally(() => {
        running = undefined;
      });
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  tick();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
