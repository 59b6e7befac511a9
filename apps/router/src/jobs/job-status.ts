import { JobStatus, TERMINAL_JOB_STATUSES } from '@docflow/contracts';

/** Progress order of a router job (spec 3.2): a job never moves back to a lower rank. */
export const JOB_STATUS_RANK: Record<JobStatus, number> = {
  queued: 0,
  processing: 1,
  awaiting_user_input: 2,
  completed: 3,
  failed: 3,
};

export function isTerminal(status: JobStatus): boolean {
  return TERMINAL_JOB_STATUSES.includes(status);
}

/**
 * The one update of a job that applying `updates` one after another under
 * the monotonic rule would leave (a terminal one stays; otherwise the last
 * one not below the highest rank so far), for each job, in first-seen
 * order. Since terminal statuses have the top rank, applying that update
 * alone with the same guard gives the same row as applying them all in
 * order: the router's results batch is one row per job.
 */
export function lastEffectiveUpdates<U extends { jobId: string; status: JobStatus }>(updates: readonly U[]): U[] {
  const winners = new Map<string, U>();
  for (const u of updates) {
    const held = winners.get(u.jobId);
    if (held && (isTerminal(held.status) || JOB_STATUS_RANK[u.status] < JOB_STATUS_RANK[held.status])) continue;
    winners.set(u.jobId, u);
  }
  return [...winners.values()];
}
