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
