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
 * Whether a results message may move a job from `from` to `to`. A terminal
 * job never changes again (a duplicate or late message is a no-op); a lower
 * rank is stale; an equal non-terminal rank is a repeat (progress while
 * processing, a new pause while awaiting input) and is recorded.
 */
export function decideTransition(from: JobStatus, to: JobStatus): 'apply' | 'ignore' {
  if (isTerminal(from)) return 'ignore';
  return JOB_STATUS_RANK[to] >= JOB_STATUS_RANK[from] ? 'apply' : 'ignore';
}
