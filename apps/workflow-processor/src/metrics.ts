import type { Counter, Gauge, Histogram } from 'prom-client';
import type { Metrics } from '@docflow/service-kit';

export interface WorkflowMetrics {
  /** Executions that reached completed, failed or awaiting_user_input. */
  executions: Counter<'status'>;
  nodeDuration: Histogram<'task_type' | 'status'>;
  inFlight: Gauge;
  /** Runs that parked (a wait between polls, a long retry backoff) and released their job. */
  parks: Counter;
}

export function createWorkflowMetrics(metrics: Metrics): WorkflowMetrics {
  return {
    executions: metrics.counter('workflow_executions_total', 'Workflow runs by outcome (completed, failed, awaiting_user_input)', ['status']),
    nodeDuration: metrics.histogram(
      'workflow_node_duration_seconds',
      'Time a node took to run, by task type and outcome',
      ['task_type', 'status'],
      [0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
    ),
    inFlight: metrics.gauge('workflow_executions_in_flight', 'Workflow runs this replica is executing now'),
    parks: metrics.counter('workflow_runs_parked_total', 'Runs that parked a wait or a retry backoff and released their job until a wake-up'),
  };
}
