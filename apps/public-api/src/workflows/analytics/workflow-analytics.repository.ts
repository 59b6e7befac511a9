import { DataSource } from 'typeorm';
import { INPUT_SUMMARY_MAX_CHARS, INPUT_SUMMARY_MAX_KEYS, type InputPreview } from './inputs-summary';

/**
 * Whose executions analytics count: one user's own, or (for a super
 * administrator) everyone's.
 */
export type AnalyticsScope = { kind: 'user'; userId: number } | { kind: 'all' };

export interface OverviewTotals {
  total_executions: number;
  successful: number;
  failed: number;
  awaiting_input: number;
  success_rate: number;
  avg_execution_time_seconds: number | null;
}

export interface WorkflowBreakdown {
  activity_id: number;
  workflow_name: string;
  executions: number;
  success_rate: number;
  avg_time: number | null;
}

export interface DayBucket {
  date: string;
  executions: number;
  success: number;
}

export interface OverviewFigures {
  totals: OverviewTotals;
  by_workflow: WorkflowBreakdown[];
  by_day: DayBucket[];
}

export interface StepPerformance {
  step_name: string;
  runs: number;
  avg_duration: number | null;
  success_rate: number;
  most_common_error: string | null;
}

export interface ActivityFigures {
  total_executions: number;
  last_30_days: {
    executions: number;
    success_rate: number;
    avg_execution_time: number | null;
    total_cost: number;
    step_performance: StepPerformance[];
    failure_analysis: { total_failures: number; by_step: Record<string, number>; by_error_type: Record<string, number> };
  };
}

export interface RecentErrorRow {
  execution_id: number;
  activity_id: number;
  workflow_name: string;
  failed_step: string | null;
  error_type: string;
  error_message: string | null;
  occurred_at: string;
  retry_count: number;
  input_previews: InputPreview[];
}

export interface RecentErrorFigures {
  total: number;
  by_error_type: Record<string, number>;
  errors: RecentErrorRow[];
}

/** The longest `most_common_error` served; error texts are kept up to 10,000 characters. */
export const MOST_COMMON_ERROR_MAX = 500;

/** Percent of finished (completed + failed) runs that completed, 2 decimals; 0 when none finished. */
function successRate(status = 'status'): string {
  return `coalesce(round(100.0 * count(*) FILTER (WHERE ${status} = 'completed')
                   / nullif(count(*) FILTER (WHERE ${status} IN ('completed', 'failed')), 0), 2), 0)`;
}

/** Seconds from start to finish of a completed or failed run that has both timestamps; null otherwise. */
const RUN_SECONDS = `CASE WHEN e.status IN ('completed', 'failed') AND e.started_at IS NOT NULL AND e.completed_at IS NOT NULL
                          THEN extract(epoch FROM e.completed_at - e.started_at) END`;

const UTC_ISO = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;

/** Positional parameters collected while a statement is put together. */
class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

function scopeSql(scope: AnalyticsScope, params: Params): string {
  return scope.kind === 'user' ? `e.user_id = ${params.add(scope.userId)}` : 'TRUE';
}

/**
 * Every figure of the analytics endpoints (spec 4.7), each endpoint one SQL
 * statement (so one snapshot and one now()), aggregated in PostgreSQL.
 */
export class WorkflowAnalyticsRepository {
  constructor(private readonly ds: DataSource) {}

  /** Executions created within `interval` (a PostgreSQL interval; null: all time). */
  async overview(scope: AnalyticsScope, interval: string | null): Promise<OverviewFigures> {
    const p = new Params();
    const since = interval === null ? 'TRUE' : `e.created_at >= now() - ${p.add(interval)}::interval`;
    const rows = (await this.ds.query(
      `WITH scoped AS MATERIALIZED (
         SELECT e.activity_id, e.status, e.created_at, ${RUN_SECONDS} AS secs
           FROM workflow_executions e
          WHERE ${scopeSql(scope, p)} AND ${since}
       )
       SELECT
         (SELECT json_build_object(
                   'total_executions', count(*),
                   'successful', count(*) FILTER (WHERE status = 'completed'),
                   'failed', count(*) FILTER (WHERE status = 'failed'),
                   'awaiting_input', count(*) FILTER (WHERE status = 'awaiting_user_input'),
                   'success_rate', ${successRate()},
                   'avg_execution_time_seconds', round(avg(secs), 2))
            FROM scoped) AS totals,
         (SELECT coalesce(json_agg(json_build_object(
                   'activity_id', w.activity_id, 'workflow_name', w.name, 'executions', w.executions,
                   'success_rate', w.success_rate, 'avg_time', w.avg_time) ORDER BY w.executions DESC, w.activity_id), '[]'::json)
            FROM (SELECT s.activity_id, a.name, count(*) AS executions, ${successRate('s.status')} AS success_rate, round(avg(s.secs), 2) AS avg_time
                    FROM scoped s JOIN activities a ON a.id = s.activity_id
                   GROUP BY s.activity_id, a.name) w) AS by_workflow,
         (SELECT coalesce(json_agg(json_build_object('date', d.day, 'executions', d.executions, 'success', d.success) ORDER BY d.day), '[]'::json)
            FROM (SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, count(*) AS executions,
                         count(*) FILTER (WHERE status = 'completed') AS success
                    FROM scoped GROUP BY 1) d) AS by_day`,
      p.values,
    )) as OverviewFigures[];
    return firstRow(rows);
  }

  /** One activity: all-time count, then the last 30 days (runs, steps of those runs, failures). */
  async activity(scope: AnalyticsScope, activityId: number): Promise<ActivityFigures> {
    const p = new Params();
    const rows = (await this.ds.query(
      `WITH mine AS MATERIALIZED (
         SELECT e.id, e.status, e.created_at, e.started_at, e.total_cost, e.error_type, e.failed_node, ${RUN_SECONDS} AS secs
           FROM workflow_executions e
          WHERE e.activity_id = ${p.add(activityId)} AND ${scopeSql(scope, p)}
       ),
       recent AS MATERIALIZED (SELECT * FROM mine WHERE created_at >= now() - interval '30 days'),
       steps AS MATERIALIZED (
         SELECT s.step_name, s.status, s.duration_seconds, s.error, extract(epoch FROM s.started_at - r.started_at) AS offset_secs
           FROM workflow_execution_steps s JOIN recent r ON r.id = s.execution_id
          WHERE s.status IN ('completed', 'failed')
       )
       SELECT
         (SELECT count(*)::int FROM mine) AS total_executions,
         (SELECT json_build_object(
                   'executions', count(*),
                   'success_rate', ${successRate()},
                   'avg_execution_time', round(avg(secs), 2),
                   'total_cost', round(coalesce(sum(total_cost), 0), 6),
                   'step_performance', (
                      SELECT coalesce(json_agg(json_build_object(
                               'step_name', sp.step_name, 'runs', sp.runs, 'avg_duration', sp.avg_duration,
                               'success_rate', sp.success_rate, 'most_common_error', sp.most_common_error)
                             ORDER BY sp.position NULLS LAST, sp.step_name), '[]'::json)
                        FROM (SELECT step_name, count(*) AS runs, round(avg(duration_seconds), 3) AS avg_duration,
                                     round(100.0 * count(*) FILTER (WHERE status = 'completed') / count(*), 2) AS success_rate,
                                     left(mode() WITHIN GROUP (ORDER BY error) FILTER (WHERE status = 'failed' AND error IS NOT NULL), ${MOST_COMMON_ERROR_MAX})
                                       AS most_common_error,
                                     avg(offset_secs) AS position
                                FROM steps GROUP BY step_name) sp),
                   'failure_analysis', json_build_object(
                      'total_failures', count(*) FILTER (WHERE status = 'failed'),
                      'by_step', (
                         SELECT coalesce(json_object_agg(f.step, f.n ORDER BY f.step), '{}'::json)
                           FROM (SELECT coalesce(st.step_name, r.failed_node, 'unknown') AS step, count(*) AS n
                                   FROM recent r
                                   LEFT JOIN workflow_execution_steps st ON st.execution_id = r.id AND st.node_id = r.failed_node
                                  WHERE r.status = 'failed' GROUP BY 1) f),
                      'by_error_type', (
                         SELECT coalesce(json_object_agg(t.error_type, t.n ORDER BY t.error_type), '{}'::json)
                           FROM (SELECT coalesce(error_type, 'unknown') AS error_type, count(*) AS n
                                   FROM recent WHERE status = 'failed' GROUP BY 1) t)))
            FROM recent) AS last_30_days`,
      p.values,
    )) as ActivityFigures[];
    return firstRow(rows);
  }

  /** Failed executions: how many, by error type, and the `limit` latest with their inputs cut down in SQL. */
  async recentErrors(scope: AnalyticsScope, limit: number): Promise<RecentErrorFigures> {
    const p = new Params();
    const rows = (await this.ds.query(
      `WITH failed AS MATERIALIZED (
         SELECT e.id, coalesce(e.error_type, 'unknown') AS error_type, coalesce(e.completed_at, e.updated_at) AS occurred_at
           FROM workflow_executions e
          WHERE e.status = 'failed' AND ${scopeSql(scope, p)}
       ),
       page AS (SELECT id, error_type, occurred_at FROM failed ORDER BY occurred_at DESC, id DESC LIMIT ${p.add(limit)})
       SELECT
         (SELECT count(*)::int FROM failed) AS total,
         (SELECT coalesce(json_object_agg(t.error_type, t.n ORDER BY t.error_type), '{}'::json)
            FROM (SELECT error_type, count(*) AS n FROM failed GROUP BY 1) t) AS by_error_type,
         (SELECT coalesce(json_agg(json_build_object(
                   'execution_id', e.id,
                   'activity_id', e.activity_id,
                   'workflow_name', a.name,
                   'failed_step', coalesce(st.step_name, e.failed_node),
                   'error_type', pg.error_type,
                   'error_message', e.error,
                   'occurred_at', to_char(pg.occurred_at AT TIME ZONE 'UTC', ${UTC_ISO}),
                   'retry_count', e.resume_count,
                   'input_previews', (
                      SELECT coalesce(json_agg(json_build_object(
                               'key', i.k,
                               'type', jsonb_typeof(i.v),
                               'text', CASE jsonb_typeof(i.v) WHEN 'string' THEN left(i.v #>> '{}', ${INPUT_SUMMARY_MAX_CHARS + 1})
                                                               WHEN 'number' THEN i.v::text WHEN 'boolean' THEN i.v::text END,
                               'size', CASE jsonb_typeof(i.v) WHEN 'array' THEN jsonb_array_length(i.v)
                                                               WHEN 'object' THEN (SELECT count(*) FROM jsonb_object_keys(i.v)) END)
                             ORDER BY i.k), '[]'::json)
                        FROM (SELECT j.key AS k, j.value AS v
                                FROM jsonb_each(CASE WHEN jsonb_typeof(e.inputs) = 'object' THEN e.inputs ELSE '{}'::jsonb END) j
                               ORDER BY j.key LIMIT ${INPUT_SUMMARY_MAX_KEYS}) i))
                 ORDER BY pg.occurred_at DESC, pg.id DESC), '[]'::json)
            FROM page pg
            JOIN workflow_executions e ON e.id = pg.id
            JOIN activities a ON a.id = e.activity_id
            LEFT JOIN workflow_execution_steps st ON st.execution_id = e.id AND st.node_id = e.failed_node) AS errors`,
      p.values,
    )) as RecentErrorFigures[];
    return firstRow(rows);
  }
}

function firstRow<T>(rows: T[]): T {
  const row = rows[0];
  if (row === undefined) throw new Error('analytics query returned no row');
  return row;
}
