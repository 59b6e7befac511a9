import type { ResultStatus } from '@docflow/contracts';

/** Execution states (spec 3.1). */
export const EXECUTION_STATUSES = ['queued', 'running', 'awaiting_user_input', 'completed', 'failed', 'cancelled'] as const;
export type ExecutionStatus = (typeof EXECUTION_STATUSES)[number];

export const TERMINAL_EXECUTION_STATUSES: readonly ExecutionStatus[] = ['completed', 'failed', 'cancelled'];

/**
 * Progress order of an execution: a results message never moves it to a lower
 * rank, and a terminal execution never changes again. (A resume moves
 * awaiting_user_input back to running; that is the resume's own transition,
 * not a results message.)
 */
export const EXECUTION_STATUS_RANK: Record<ExecutionStatus, number> = {
  queued: 0,
  running: 1,
  awaiting_user_input: 2,
  completed: 3,
  failed: 3,
  cancelled: 3,
};

export function isTerminalExecutionStatus(status: ExecutionStatus): boolean {
  return TERMINAL_EXECUTION_STATUSES.includes(status);
}

/** The execution status a results message reports (`processing` is the processors' word for running). */
export function executionStatusOf(status: ResultStatus): ExecutionStatus {
  switch (status) {
    case 'processing':
      return 'running';
    case 'completed':
      return 'completed';
    case 'failed':
      return 'failed';
    case 'awaiting_user_input':
      return 'awaiting_user_input';
    default: {
      const never: never = status;
      throw new Error(`unknown result status ${String(never)}`);
    }
  }
}

/**
 * Whether a results message of status `to` may be applied to an execution in
 * `from` (the same rule the guarded UPDATE states in SQL; sequences and job
 * ids are checked there too).
 */
export function mayApplyResult(from: ExecutionStatus, to: ExecutionStatus): boolean {
  if (isTerminalExecutionStatus(from)) return false;
  return EXECUTION_STATUS_RANK[to] >= EXECUTION_STATUS_RANK[from];
}
