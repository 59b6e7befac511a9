import { executionKeyOf } from '@docflow/contracts';
import { deleteUserRows, type PublicApiDatabase, type SqlRunner } from '../platform';

type Row = Record<string, unknown>;

/** The workflows module's rows of one user (issue #18); secrets (hashes, sealed tokens, watch tokens) never leave the database. */
export class WorkflowsUserDataRepository {
  constructor(private readonly ds: PublicApiDatabase) {}

  private rows(sql: string, userId: number): Promise<Row[]> {
    return this.ds.query(sql, [userId]) as Promise<Row[]>;
  }

  activities(userId: number): Promise<Row[]> {
    return this.rows('SELECT * FROM activities WHERE owner_id = $1 ORDER BY id', userId);
  }

  /** Executions with their timelines (one entry per step, in order). */
  executions(userId: number): Promise<Row[]> {
    return this.rows(
      `SELECT e.id, e.activity_id, e.status, e.workflow_definition, e.inputs, e.outputs, e.results, e.task_states, e.error, e.error_type,
              e.failed_node, e.awaiting_node, e.awaiting_input_schema, e.awaiting_since, e.job_id, e.resume_count, e.retry_of,
              e.deadline_at, e.started_at, e.completed_at, e.total_cost, e.created_at, e.updated_at,
              COALESCE((SELECT json_agg(json_build_object('node_id', s.node_id, 'step_name', s.step_name, 'step_type', s.step_type, 'status', s.status,
                                                          'started_at', s.started_at, 'completed_at', s.completed_at, 'duration_seconds', s.duration_seconds,
                                                          'cost', s.cost, 'result_summary', s.result_summary, 'error', s.error, 'error_type', s.error_type)
                                        ORDER BY s.started_at NULLS LAST, s.id)
                          FROM workflow_execution_steps s WHERE s.execution_id = e.id), '[]'::json) AS timeline
         FROM workflow_executions e WHERE e.user_id = $1 ORDER BY e.id`,
      userId,
    );
  }

  webhooks(userId: number): Promise<Row[]> {
    return this.rows(
      `SELECT id, activity_id, name, active, event_type, accept_files, max_file_size_mb, allowed_mime_types, auto_enable_rag, allowed_origins,
              trigger_count, last_triggered_at, created_at, updated_at
         FROM webhooks WHERE owner_id = $1 ORDER BY id`,
      userId,
    );
  }

  schedules(userId: number): Promise<Row[]> {
    return this.rows('SELECT * FROM workflow_schedules WHERE owner_id = $1 ORDER BY id', userId);
  }

  eventSources(userId: number): Promise<Row[]> {
    return this.rows(
      `SELECT id, name, source_type, config, drive_item_id, drive_item_type, drive_item_name, watch_expiry, is_active, last_event_at, event_count,
              error_message, created_at, updated_at
         FROM event_sources WHERE owner_id = $1 ORDER BY id`,
      userId,
    );
  }

  eventSubscriptions(userId: number): Promise<Row[]> {
    return this.rows('SELECT * FROM event_subscriptions WHERE owner_id = $1 ORDER BY id', userId);
  }

  eventLogs(userId: number): Promise<Row[]> {
    return this.rows(
      `SELECT id, event_id, event_source_id, source_type, event_type, payload, status, subscriptions_matched, workflows_triggered, error_message,
              received_at, processed_at
         FROM event_logs WHERE owner_id = $1 ORDER BY id`,
      userId,
    );
  }

  /** Whether the user connected a cloud drive (the sealed tokens stay out). */
  driveGrant(userId: number): Promise<Row[]> {
    return this.rows('SELECT status, error_message, updated_at FROM cloud_drive_grants WHERE user_id = $1', userId);
  }

  async sourceIds(userId: number): Promise<number[]> {
    const rows = (await this.ds.query('SELECT id FROM event_sources WHERE owner_id = $1 ORDER BY id', [userId])) as { id: number }[];
    return rows.map((r) => r.id);
  }

  /**
   * The router jobs of the executions that go with the user: theirs, and
   * other users' runs of their activities (removed with the activities by
   * cascade). The router keeps no user id.
   */
  async executionJobIds(userId: number): Promise<string[]> {
    const rows = (await this.ds.query(`SELECT DISTINCT job_id FROM workflow_executions e WHERE ${GOING} AND job_id IS NOT NULL`, [userId])) as { job_id: string }[];
    return rows.map((r) => r.job_id);
  }

  /**
   * Every row the user owns, children first, in one transaction: the workflow
   * processor's checkpoints and parked runs of the executions that go (its
   * own tables in the shared database, keyed by execution with no foreign
   * key), executions (their steps by cascade), webhooks, schedules, event
   * logs, subscriptions, sources (their drive bookkeeping by cascade),
   * document imports, the drive grant, then activities (other users'
   * executions of them by cascade).
   */
  async deleteAll(userId: number): Promise<Record<string, number>> {
    return this.ds.transaction(async (m) => {
      const del = (table: string, column?: string) => deleteUserRows(m, table, userId, column);
      const keys = await processorKeys(m, userId);
      return {
        nodeRuns: await deleteProcessorRows(m, 'workflow_node_runs', keys),
        parkedRuns: await deleteProcessorRows(m, 'workflow_wakeups', keys),
        executions: await del('workflow_executions', 'user_id'),
        webhooks: await del('webhooks'),
        schedules: await del('workflow_schedules'),
        eventLogs: await del('event_logs'),
        eventSubscriptions: await del('event_subscriptions'),
        eventSources: await del('event_sources'),
        documentImports: await del('document_imports', 'user_id'),
        driveGrants: await del('cloud_drive_grants', 'user_id'),
        activities: await del('activities'),
      };
    });
  }
}

/** The executions (alias `e`) that go with user $1: theirs, and any run of their activities. */
const GOING = '(e.user_id = $1 OR e.activity_id IN (SELECT id FROM activities WHERE owner_id = $1))';

/** The processor's keys of those executions: by execution id, and by job id for a job that named none (`executionKeyOf`). */
async function processorKeys(m: SqlRunner, userId: number): Promise<string[]> {
  const rows = (await m.query(`SELECT e.id, e.job_id FROM workflow_executions e WHERE ${GOING}`, [userId])) as { id: number; job_id: string | null }[];
  return rows.flatMap((r) => [executionKeyOf('', r.id), ...(r.job_id === null ? [] : [executionKeyOf(r.job_id, undefined)])]);
}

/**
 * Deletes the processor's rows of those keys; none when its table is not in
 * this database (a public API run without the processor's migrations).
 */
async function deleteProcessorRows(m: SqlRunner, table: 'workflow_node_runs' | 'workflow_wakeups', keys: string[]): Promise<number> {
  const [present] = (await m.query('SELECT to_regclass($1) IS NOT NULL AS present', [table])) as { present: boolean }[];
  if (!present?.present || keys.length === 0) return 0;
  const rows = (await m.query(`WITH gone AS (DELETE FROM ${table} WHERE execution_key = ANY($1::text[]) RETURNING 1) SELECT count(*)::int AS n FROM gone`, [keys])) as { n: number }[];
  return rows[0]?.n ?? 0;
}
