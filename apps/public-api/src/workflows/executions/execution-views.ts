import type { ExecutionStatus } from './execution-status';
import type { WorkflowExecutionStepEntity } from './workflow-execution-step.entity';
import type { WorkflowExecutionEntity } from './workflow-execution.entity';

/** What the execution endpoints return (spec 2.9, 4.8). Timestamps are ISO 8601; status payloads use snake_case. */

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

export interface ExecutionView {
  id: number;
  status: ExecutionStatus;
  activity: number;
  inputs: Record<string, unknown>;
  results: Record<string, unknown> | null;
  outputs: Record<string, unknown> | null;
  started_at: string | null;
  completed_at: string | null;
  completedAt: string | null;
  error: string | null;
  error_type: string | null;
  failed_node: string | null;
  total_cost: number;
  /** The failed execution this one retries, or null. */
  retry_of: number | null;
  createdAt: string;
  updatedAt: string;
}

/** The columns the execution view reads. */
export type ExecutionViewSource = Pick<
  WorkflowExecutionEntity,
  'id' | 'status' | 'activityId' | 'inputs' | 'results' | 'outputs' | 'startedAt' | 'completedAt' | 'error' | 'errorType' | 'failedNode' | 'totalCost' | 'createdAt' | 'updatedAt'
> & { retryOf?: number | null };

export function toExecutionView(e: ExecutionViewSource): ExecutionView {
  return {
    id: e.id,
    status: e.status,
    activity: e.activityId,
    inputs: e.inputs,
    results: e.results,
    outputs: e.outputs,
    started_at: iso(e.startedAt),
    completed_at: iso(e.completedAt),
    completedAt: iso(e.completedAt),
    error: e.error,
    error_type: e.errorType,
    failed_node: e.failedNode,
    total_cost: e.totalCost,
    retry_of: e.retryOf ?? null,
    createdAt: e.createdAt.toISOString(),
    updatedAt: e.updatedAt.toISOString(),
  };
}

export interface ExecutionStatusView {
  id: number;
  status: ExecutionStatus;
  task_states: Record<string, unknown>;
  outputs: Record<string, unknown> | null;
  awaiting_node: string | null;
  /** Only while awaiting input, and only to the owner (needed to resume). */
  correlation_token: string | null;
  awaiting_input_schema: Record<string, unknown> | null;
  awaiting_since: string | null;
  started_at: string | null;
  completed_at: string | null;
  error: string | null;
  error_type: string | null;
  failed_node: string | null;
}

/** Every key is always present; those that do not apply to the current status are null. */
/** The columns the status view reads. */
export type StatusViewSource = Pick<
  WorkflowExecutionEntity,
  'id' | 'status' | 'taskStates' | 'outputs' | 'awaitingNode' | 'awaitingInputSchema' | 'awaitingSince' | 'startedAt' | 'completedAt' | 'error' | 'errorType' | 'failedNode'
>;

export function toStatusView(e: StatusViewSource, correlationToken: string | null): ExecutionStatusView {
  const awaiting = e.status === 'awaiting_user_input';
  return {
    id: e.id,
    status: e.status,
    task_states: e.taskStates,
    outputs: e.outputs,
    awaiting_node: awaiting ? e.awaitingNode : null,
    correlation_token: awaiting ? correlationToken : null,
    awaiting_input_schema: awaiting ? e.awaitingInputSchema : null,
    awaiting_since: awaiting ? iso(e.awaitingSince) : null,
    started_at: iso(e.startedAt),
    completed_at: iso(e.completedAt),
    error: e.error,
    error_type: e.errorType,
    failed_node: e.failedNode,
  };
}

export interface TimelineEntry {
  node_id: string;
  step_name: string;
  step_type: string | null;
  status: string;
  started_at: string | null;
  completed_at: string | null;
  duration_seconds: number | null;
  cost: number | null;
  result_summary: string | null;
  error: string | null;
  error_type: string | null;
}

export interface TimelineView {
  execution_id: number;
  status: ExecutionStatus;
  total_duration_seconds: number | null;
  total_cost: number;
  timeline: TimelineEntry[];
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown> | null;
}

/** Seconds from start to completion (or to `now` while still going); null before the start. */
export function totalDurationSeconds(e: Pick<WorkflowExecutionEntity, 'startedAt' | 'completedAt'>, now: Date): number | null {
  if (!e.startedAt) return null;
  const end = e.completedAt ?? now;
  return Math.max(0, Math.round(end.getTime() - e.startedAt.getTime()) / 1000);
}

export function toTimelineView(
  e: Pick<WorkflowExecutionEntity, 'id' | 'status' | 'startedAt' | 'completedAt' | 'totalCost' | 'inputs' | 'outputs'>,
  steps: WorkflowExecutionStepEntity[],
  now = new Date(),
): TimelineView {
  return {
    execution_id: e.id,
    status: e.status,
    total_duration_seconds: totalDurationSeconds(e, now),
    total_cost: e.totalCost,
    timeline: steps.map((s) => ({
      node_id: s.nodeId,
      step_name: s.stepName,
      step_type: s.stepType,
      status: s.status,
      started_at: iso(s.startedAt),
      completed_at: iso(s.completedAt),
      duration_seconds: s.durationSeconds,
      cost: s.cost,
      result_summary: s.resultSummary,
      error: s.error,
      error_type: s.errorType,
    })),
    inputs: e.inputs,
    outputs: e.outputs,
  };
}
