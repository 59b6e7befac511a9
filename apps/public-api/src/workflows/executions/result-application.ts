import { executionIdFromJobId, ResultMessage, TASK_STATUSES, TaskStatus } from '@docflow/contracts';
import { isPlainObject } from '@docflow/workflow';
import { EXECUTION_STATUS_RANK, ExecutionStatus, executionStatusOf } from './execution-status';

/**
 * Pure helpers that turn a results message (spec 4.16) into what the
 * repository writes: the guarded execution update and the step rows.
 */

export const RESULT_SUMMARY_MAX = 500;

/** One row of workflow_execution_steps, from one entry of `task_states`. */
export interface StepRow {
  node_id: string;
  step_name: string;
  step_type: string | null;
  status: TaskStatus;
  started_at: string | null;
  completed_at: string | null;
  cost: number | null;
  result_summary: string | null;
  error: string | null;
  error_type: string | null;
}

/** What one results message asks the execution record to become. */
export interface ExecutionResultUpdate {
  executionId: number;
  jobId: string;
  status: ExecutionStatus;
  rank: number;
  /** Merged into the stored task_states (node by node). */
  taskStates: Record<string, unknown>;
  /** Merged into the stored outputs; null: the message carries none. */
  outputs: Record<string, unknown> | null;
  error: string | null;
  errorType: string | null;
  failedNode: string | null;
  awaitingNode: string | null;
  awaitingInputSchema: Record<string, unknown> | null;
  correlationToken: string | null;
  awaitingSince: string | null;
  /** null: the message has no usable sequence (then only the status order guards it). */
  sequence: number | null;
  steps: StepRow[];
}

/** The execution a message belongs to: `execution_id`, else the id inside a `wf_<id>` job id. */
export function executionIdOf(msg: Pick<ResultMessage, 'execution_id' | 'job_id'>): number | undefined {
  if (typeof msg.execution_id === 'number' && Number.isSafeInteger(msg.execution_id) && msg.execution_id > 0) return msg.execution_id;
  return executionIdFromJobId(msg.job_id);
}

export function buildResultUpdate(executionId: number, msg: ResultMessage): ExecutionResultUpdate {
  const status = executionStatusOf(msg.status);
  const taskStates = isPlainObject(msg.task_states) ? (msg.task_states as Record<string, unknown>) : {};
  const awaiting = status === 'awaiting_user_input';
  return {
    executionId,
    jobId: msg.job_id,
    status,
    rank: EXECUTION_STATUS_RANK[status],
    taskStates,
    outputs: isPlainObject(msg.outputs) ? msg.outputs : null,
    error: status === 'failed' ? (clip(text(msg.error), 10000) ?? 'Workflow execution failed') : null,
    errorType: status === 'failed' ? clip(text(msg.error_type), 50) : null,
    failedNode: status === 'failed' ? clip(text(msg.failed_node), 255) : null,
    awaitingNode: awaiting ? clip(text(msg.awaiting_node), 255) : null,
    awaitingInputSchema: awaiting && isPlainObject(msg.awaiting_input_schema) ? msg.awaiting_input_schema : null,
    correlationToken: awaiting ? text(msg.correlation_token) : null,
    awaitingSince: awaiting ? isoDate(msg.awaiting_since) : null,
    sequence: typeof msg.sequence === 'number' && Number.isSafeInteger(msg.sequence) && msg.sequence >= 0 ? msg.sequence : null,
    steps: stepRowsOf(taskStates),
  };
}

/**
 * Step rows for every node the processor reported as started or settled;
 * `pending` nodes have done nothing yet and get no row.
 */
export function stepRowsOf(taskStates: Record<string, unknown>): StepRow[] {
  const rows: StepRow[] = [];
  for (const [nodeId, raw] of Object.entries(taskStates)) {
    if (!isPlainObject(raw) || nodeId === '') continue;
    const status = raw['status'];
    if (!isTaskStatus(status) || status === 'pending') continue;
    rows.push({
      node_id: nodeId.slice(0, 255),
      step_name: (text(raw['label']) ?? nodeId).slice(0, 255),
      step_type: clip(text(raw['task_type']), 100),
      status,
      started_at: isoDate(raw['started_at']),
      completed_at: status === 'running' ? null : isoDate(raw['completed_at']),
      cost: finiteNonNegative(raw['cost']),
      result_summary: summarizeResult(raw['result'] ?? raw['outputs']),
      error: clip(text(raw['error']), 10000),
      error_type: clip(text(raw['error_type']), 50),
    });
  }
  return rows;
}

/** A short text form of a node result: the string itself or its JSON, at most 500 characters. */
export function summarizeResult(result: unknown, max = RESULT_SUMMARY_MAX): string | null {
  if (result === undefined || result === null) return null;
  let out: string;
  if (typeof result === 'string') out = result;
  else {
    try {
      out = JSON.stringify(result) ?? String(result);
    } catch {
      out = String(result);
    }
  }
  return out.length <= max ? out : `${out.slice(0, max - 1)}…`;
}

function isTaskStatus(value: unknown): value is TaskStatus {
  return typeof value === 'string' && (TASK_STATUSES as readonly string[]).includes(value);
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

function clip(value: string | null, max: number): string | null {
  return value === null ? null : value.slice(0, max);
}

function isoDate(value: unknown): string | null {
  if (typeof value !== 'string' && typeof value !== 'number') return null;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

function finiteNonNegative(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null;
}
