import { type PgTransaction, withPgTransaction } from '@docflow/persistence';
import type { PublicApiDatabase } from '../../platform';
import { USER_START_LOCK } from '../executions/workflow-executions.repository';

export interface WebhookVersionRow {
  id: number;
  /**
   * Digests of what a trigger's checks read of the webhook and of its activity (null for no activity):
   * any change to those columns moves them, whether or not it touched `updated_at`.
   */
  wv: string;
  av: string | null;
  role: string;
  blocked: boolean;
}

export interface PendingExecutionRow {
  id: number;
  activityId: number;
  userId: number;
  definitionJson: string;
  inputsJson: string;
}

/** The statements of webhook triggers accepted in batches (webhook-accept.ts); all but the sweep run inside the batch's transaction. */
export class WebhookAcceptRepository {
  constructor(private readonly database: PublicApiDatabase) {}

  transaction<T>(work: (tx: PgTransaction) => Promise<T>): Promise<T> {
    return withPgTransaction(this.database, work);
  }

  /** The versions of the webhooks, their owners' role and state; with `tx`, the webhook rows locked in id order until its commit. */
  async versions(ids: number[], tx?: PgTransaction): Promise<Map<number, WebhookVersionRow>> {
    const text = `SELECT w.id, md5(row(w.updated_at, w.owner_id, w.activity_id, w.secret_hash, w.previous_secret_hash, w.previous_secret_expires_at, w.active, w.allowed_origins)::text) AS wv,
                         md5(row(a.updated_at, a.level, a.owner_id, a.workflow_definition)::text) AS av, u.role, u.blocked
                    FROM webhooks w JOIN users u ON u.id = w.owner_id LEFT JOIN activities a ON a.id = w.activity_id
                   WHERE w.id = ANY($1::int[]) ORDER BY w.id${tx ? ' FOR UPDATE OF w' : ''}`;
    const rows = tx ? ((await tx.query(text, [ids])).rows as unknown as WebhookVersionRow[]) : ((await this.database.query(text, [ids])) as WebhookVersionRow[]);
    return new Map(rows.map((r) => [Number(r.id), r]));
  }

  /** RateLimitRepository.hit counting `n` hits at once (the same window rules, the same table). */
  async hitRate(tx: PgTransaction, key: string, windowSeconds: number, n: number): Promise<{ count: number; retryAfterSeconds: number }> {
    const row = (await tx.query(RATE_HIT_SQL, [key, windowSeconds, n])).rows[0] as { count: number; retry_after: number };
    return { count: Number(row.count), retryAfterSeconds: Number(row.retry_after) };
  }

  /** `n` execution ids from the table's sequence. */
  async nextExecutionIds(tx: PgTransaction, n: number): Promise<number[]> {
    const rows = (await tx.query('SELECT nextval(pg_get_serial_sequence($1, $2))::int AS id FROM generate_series(1, $3::int)', ['workflow_executions', 'id', n])).rows as { id: number }[];
    return rows.map((r) => Number(r.id));
  }

  /** Takes the owner's start lock (the one starts take) and counts its running executions plus those accepted and not yet started. */
  async lockAndCountRunning(tx: PgTransaction, ownerId: number): Promise<number> {
    await tx.query('SELECT pg_advisory_xact_lock($1, $2)', [USER_START_LOCK, ownerId]);
    return Number(((await tx.query(RUNNING_OR_PENDING_SQL, [ownerId])).rows[0] as { n: number }).n);
  }

  async insertPending(tx: PgTransaction, rows: PendingExecutionRow[]): Promise<void> {
    await tx.query(INSERT_SQL, [rows.map((r) => r.id), rows.map((r) => r.activityId), rows.map((r) => r.userId), rows.map((r) => r.definitionJson), rows.map((r) => r.inputsJson)]);
  }

  async countTriggers(tx: PgTransaction, counts: Map<number, number>): Promise<void> {
    await tx.query('UPDATE webhooks w SET trigger_count = w.trigger_count + c.n, last_triggered_at = now() FROM unnest($1::int[], $2::int[]) AS c(id, n) WHERE w.id = c.id', [
      [...counts.keys()],
      [...counts.values()],
    ]);
  }

  /** Pending starts older than `afterSeconds`, oldest first. */
  async pendingStarts(afterSeconds: number, limit: number): Promise<{ id: number; userId: number; role: string }[]> {
    const rows = (await this.database.query(SWEEP_SQL, [afterSeconds, limit])) as { id: number; user_id: number; role: string }[];
    return rows.map((r) => ({ id: Number(r.id), userId: Number(r.user_id), role: r.role }));
  }
}

const RATE_HIT_SQL = `INSERT INTO rate_limit_counters AS c (key, count, expires_at)
  VALUES ($1, $3::int, now() + make_interval(secs => $2))
  ON CONFLICT (key) DO UPDATE
    SET count = CASE WHEN c.expires_at <= now() THEN $3::int ELSE c.count + $3::int END,
        reported = CASE WHEN c.expires_at <= now() THEN false ELSE c.reported END,
        expires_at = CASE WHEN c.expires_at <= now() THEN EXCLUDED.expires_at ELSE c.expires_at END
  RETURNING count, greatest(1, ceil(extract(epoch FROM c.expires_at - now())))::int AS retry_after`;

/** The owner's running executions plus those accepted and not yet started: the cap an accepted trigger counts against. */
const RUNNING_OR_PENDING_SQL = `SELECT (SELECT count(*) FROM workflow_executions WHERE user_id = $1 AND status = 'running')
     + (SELECT count(*) FROM workflow_executions WHERE user_id = $1 AND status = 'queued' AND start_pending) AS n`;

const INSERT_SQL = `INSERT INTO workflow_executions (id, activity_id, user_id, status, workflow_definition, inputs, task_states, outputs, retry_of, resume_count, total_cost, start_pending)
  SELECT t.id, t.activity_id, t.user_id, 'queued', t.definition::jsonb, t.inputs::jsonb, '{}'::jsonb, NULL, NULL, 0, 0, true
    FROM unnest($1::int[], $2::int[], $3::int[], $4::text[], $5::text[]) AS t(id, activity_id, user_id, definition, inputs)`;

const SWEEP_SQL = `SELECT e.id, e.user_id, u.role FROM workflow_executions e JOIN users u ON u.id = e.user_id
  WHERE e.status = 'queued' AND e.start_pending AND e.created_at < now() - make_interval(secs => $1) ORDER BY e.id LIMIT $2`;
