import { pgPool, sqlInt, sqlLiteral } from '@docflow/persistence';
import type { PublicApiDatabase } from '../../platform';
import type { ResumedRow, StartedRow } from '../executions/workflow-executions.repository';

/**
 * First key of the advisory lock that serialises accept batches per owner: pg_advisory_xact_lock(this, owner id).
 * Not the starts' lock (USER_START_LOCK): nothing a start does changes what an accept counts (a webhook start
 * moves one execution from accepted-not-started to running, the sum the cap is held to; a start by hand or a
 * resume adds a running execution whether or not it waits for the accept, since it counts running executions
 * only), so sharing it only made accepts and starts of one owner queue on each other, each through the other's
 * commit. Two accepts of one owner still run one after the other and each counts what the other inserted.
 */
export const WEBHOOK_ACCEPT_LOCK = 44_040_002;

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

/** One webhook's triggers of a batch, with what the fast path checked them against. */
export interface AcceptGroup {
  webhookId: number;
  ownerId: number;
  activityId: number;
  webhookVersion: string;
  activityVersion: string;
  role: string;
  definitionJson: string;
  /** Each trigger's inputs as JSON, in arrival order. */
  inputsJson: string[];
  perMinute: number;
  maxRunning: number;
  /** The UTC month (`YYYY-MM-DD`, its first day) whose executions the monthly quota counts. */
  period: string;
  /** EXECUTION_QUOTA_MONTHLY (null: none), which the owner's override replaces. */
  executionsMonthly: number | null;
}

/**
 * `ok` false: the versions moved (or the webhook is gone), nothing was done. Otherwise the rate
 * window's count after this group and its remaining seconds, how many triggers the rate limit left
 * room for, the running count before the group, the monthly executions quota (limit, and the
 * executions counted against it before the group: started this month plus accepted not yet started;
 * null limit: none), and the ids of the admitted triggers (the first ones).
 */
export interface AcceptGroupResult {
  ok: boolean;
  count: number;
  retryAfterSeconds: number;
  room: number;
  running: number;
  quotaLimit: number | null;
  quotaUsed: number;
  ids: number[];
}

/** The statements of webhook triggers accepted in batches (webhook-accept.ts). */
export class WebhookAcceptRepository {
  constructor(private readonly database: PublicApiDatabase) {}

  /** The versions of the webhooks (digests of what a trigger's checks read), their owners' role and state. */
  async versions(ids: number[]): Promise<Map<number, WebhookVersionRow>> {
    const text = `SELECT w.id, md5(${WEBHOOK_DIGEST}) AS wv, md5(${ACTIVITY_DIGEST}) AS av, u.role, u.blocked
                    FROM webhooks w JOIN users u ON u.id = w.owner_id LEFT JOIN activities a ON a.id = w.activity_id
                   WHERE w.id = ANY($1::int[])`;
    const rows = (await this.database.query(text, [ids])) as WebhookVersionRow[];
    return new Map(rows.map((r) => [Number(r.id), r]));
  }

  /**
   * A batch of triggers in one round trip: one simple-protocol message, run by
   * PostgreSQL as one implicit transaction (one commit). It locks the
   * webhooks' rows (id order), then takes the owners' accept locks (owner
   * order, WEBHOOK_ACCEPT_LOCK), then runs one statement per webhook
   * (acceptGroupSql). Values are integers or escaped literals, since a
   * multi-statement message takes no parameters.
   */
  async acceptBatch(groups: AcceptGroup[]): Promise<AcceptGroupResult[]> {
    const webhooks = [...new Set(groups.map((g) => g.webhookId))].sort((a, b) => a - b);
    const owners = [...new Set(groups.map((g) => g.ownerId))].sort((a, b) => a - b);
    const statements = [
      `SELECT id FROM webhooks WHERE id IN (${webhooks.map(sqlInt).join(', ')}) ORDER BY id FOR UPDATE`,
      ...owners.map((o) => `SELECT pg_advisory_xact_lock(${sqlInt(WEBHOOK_ACCEPT_LOCK)}, ${sqlInt(o)})`),
      ...groups.map(acceptGroupSql),
    ];
    const results = await pgPool(this.database).query(statements.join(';\n'));
    const list = Array.isArray(results) ? results : [results];
    if (list.length !== statements.length) throw new Error(`a batch of ${statements.length} statements answered ${list.length} results`);
    return groups.map((_, i) => {
      const row = list[list.length - groups.length + i]?.rows[0] as
        | {
            ok: boolean | null;
            count: number | null;
            retry_after: number | null;
            room: number | null;
            running: number | string | null;
            quota_limit: number | null;
            quota_used: number | string | null;
            ids: number[] | null;
          }
        | undefined;
      if (!row || row.ok !== true) return { ok: false, count: 0, retryAfterSeconds: 0, room: 0, running: 0, quotaLimit: null, quotaUsed: 0, ids: [] };
      return {
        ok: true,
        count: Number(row.count),
        retryAfterSeconds: Number(row.retry_after),
        room: Number(row.room),
        running: Number(row.running),
        quotaLimit: row.quota_limit === null ? null : Number(row.quota_limit),
        quotaUsed: Number(row.quota_used),
        ids: (row.ids ?? []).map(Number),
      };
    });
  }

  /**
   * Executions a webhook start moved to `running` more than `afterSeconds` ago that show no sign of their job
   * since (no result applied: `last_progress_at` still the start's time, no sequence), oldest first: their
   * process may have died between the start's commit and the router submission.
   */
  async unsubmittedStarts(afterSeconds: number, limit: number): Promise<(StartedRow & { jobId: string })[]> {
    const rows = (await this.database.query(UNSUBMITTED_SQL, [afterSeconds, limit])) as (StartedRow & { jobId: string })[];
    return rows.map((r) => ({ ...r, id: Number(r.id), activityId: Number(r.activityId), userId: Number(r.userId) }));
  }

  /**
   * A resubmitted start is marked (its progress time moves past its start time), so the sweep submits it once:
   * a job merely waiting behind a long queue is not published again on every sweep. Only a row still as the
   * sweep read it changes.
   */
  async markResubmitted(id: number, jobId: string): Promise<void> {
    await this.database.query(
      "UPDATE workflow_executions SET last_progress_at = now() WHERE id = $1 AND job_id = $2 AND status = 'running' AND last_sequence IS NULL AND last_progress_at = started_at",
      [id, jobId],
    );
  }

  /**
   * Executions a resume moved to `running` more than `afterSeconds` ago that show no sign of its job since
   * (`last_progress_at` still the resume's time), oldest first: their process may have died between the
   * resume's commit and the router submission. The start's query, for resumes (their progress time is the
   * resume's, not the start's).
   */
  async unsubmittedResumes(afterSeconds: number, limit: number): Promise<ResumedRow[]> {
    const rows = (await this.database.query(UNSUBMITTED_RESUMES_SQL, [afterSeconds, limit])) as ResumedRow[];
    return rows.map((r) => ({ ...r, id: Number(r.id), activityId: Number(r.activityId), userId: Number(r.userId) }));
  }

  /** A resubmitted resume is marked as a start is (markResubmitted): once per resume. */
  async markResumeResubmitted(id: number, jobId: string): Promise<void> {
    await this.database.query("UPDATE workflow_executions SET last_progress_at = now() WHERE id = $1 AND job_id = $2 AND status = 'running' AND last_progress_at = resumed_at", [id, jobId]);
  }

  /** Pending starts older than `afterSeconds`, oldest first. */
  async pendingStarts(afterSeconds: number, limit: number): Promise<{ id: number; userId: number; role: string }[]> {
    const rows = (await this.database.query(SWEEP_SQL, [afterSeconds, limit])) as { id: number; user_id: number; role: string }[];
    return rows.map((r) => ({ id: Number(r.id), userId: Number(r.user_id), role: r.role }));
  }
}

/**
 * One webhook's triggers of a batch, in one statement whose snapshot follows
 * the locks: the versions compared (nothing else happens when they moved),
 * the rate window counted once for all of them (RateLimitRepository.hit with
 * n hits: the same window rules, the same table), the owner's running plus
 * accepted-not-started executions counted, the owner's monthly executions
 * quota read (override, else the default) with the month's started count
 * (`user_quota_periods`, which a start raises) plus the accepted not yet
 * started, the first `m` admitted (under all three limits) inserted `queued`
 * and `start_pending` with ids taken in trigger order, and the webhook's
 * count raised by m. The start's quota take stays the authority (a start by
 * hand between this read and a start can still use the last unit up).
 */
export function acceptGroupSql(g: AcceptGroup): string {
  const n = g.inputsJson.length;
  const items = g.inputsJson.map((inputs, i) => `(${i + 1}, ${sqlLiteral(inputs)})`).join(', ');
  const key = sqlLiteral(`webhook:${g.webhookId}`);
  const room = `greatest(0, least(${n}, ${sqlInt(g.perMinute)} - (hit.count - ${n})))`;
  return `WITH v AS (
      SELECT (md5(${WEBHOOK_DIGEST}) = ${sqlLiteral(g.webhookVersion)} AND md5(${ACTIVITY_DIGEST}) = ${sqlLiteral(g.activityVersion)}
              AND u.role = ${sqlLiteral(g.role)} AND NOT u.blocked) AS ok
        FROM webhooks w JOIN users u ON u.id = w.owner_id LEFT JOIN activities a ON a.id = w.activity_id
       WHERE w.id = ${sqlInt(g.webhookId)}
    ), hit AS (
      INSERT INTO rate_limit_counters AS c (key, count, expires_at)
      SELECT ${key}, ${n}, now() + make_interval(secs => 60) FROM v WHERE v.ok
      ON CONFLICT (key) DO UPDATE
        SET count = CASE WHEN c.expires_at <= now() THEN ${n} ELSE c.count + ${n} END,
            reported = CASE WHEN c.expires_at <= now() THEN false ELSE c.reported END,
            expires_at = CASE WHEN c.expires_at <= now() THEN EXCLUDED.expires_at ELSE c.expires_at END
      RETURNING c.count, greatest(1, ceil(extract(epoch FROM c.expires_at - now())))::int AS retry_after
    ), counts AS (
      SELECT (SELECT count(*) FROM workflow_executions WHERE user_id = ${sqlInt(g.ownerId)} AND status = 'running') AS running,
             (SELECT count(*) FROM workflow_executions WHERE user_id = ${sqlInt(g.ownerId)} AND status = 'queued' AND start_pending) AS pending
    ), running AS (
      SELECT counts.running + counts.pending AS n FROM counts
    ), quota AS (
      SELECT q.lim, CASE WHEN q.lim IS NULL THEN 0
                         ELSE COALESCE((SELECT executions FROM user_quota_periods WHERE user_id = ${sqlInt(g.ownerId)} AND period = ${sqlLiteral(g.period)}::date), 0) + counts.pending END AS used
        FROM (SELECT COALESCE((SELECT executions_monthly FROM user_quotas WHERE user_id = ${sqlInt(g.ownerId)}), ${g.executionsMonthly === null ? 'NULL' : sqlInt(g.executionsMonthly)}::integer) AS lim) q, counts
    ), admit AS (
      SELECT ${room} AS room,
             greatest(0, least(${room}, ${sqlInt(g.maxRunning)} - running.n, CASE WHEN quota.lim IS NULL THEN ${n} ELSE quota.lim - quota.used END)) AS m
        FROM hit, running, quota
    ), items AS (
      SELECT * FROM (VALUES ${items}) AS t(ord, inputs)
    ), ids AS (
      SELECT o.ord, o.inputs, s.id
        FROM (SELECT ord, inputs, row_number() OVER (ORDER BY ord) AS rn FROM items) o
        JOIN (SELECT id, row_number() OVER (ORDER BY id) AS rn
                FROM (SELECT nextval(pg_get_serial_sequence('workflow_executions', 'id'))::int AS id FROM items, admit WHERE items.ord <= admit.m) x) s USING (rn)
    ), ins AS (
      INSERT INTO workflow_executions (id, activity_id, user_id, status, workflow_definition, inputs, task_states, outputs, retry_of, resume_count, total_cost, start_pending)
      SELECT ids.id, ${sqlInt(g.activityId)}, ${sqlInt(g.ownerId)}, 'queued', ${sqlLiteral(g.definitionJson)}::jsonb, ids.inputs::jsonb, '{}'::jsonb, NULL, NULL, 0, 0, true FROM ids
      RETURNING id
    ), upd AS (
      UPDATE webhooks SET trigger_count = trigger_count + (SELECT count(*) FROM ins)::int, last_triggered_at = now()
       WHERE id = ${sqlInt(g.webhookId)} AND EXISTS (SELECT 1 FROM ins)
    )
    SELECT v.ok, hit.count, hit.retry_after, admit.room, running.n AS running, quota.lim AS quota_limit, quota.used AS quota_used,
           (SELECT coalesce(array_agg(id ORDER BY ord), '{}') FROM ids) AS ids
      FROM v LEFT JOIN hit ON true LEFT JOIN admit ON true CROSS JOIN running CROSS JOIN quota`;
}

const WEBHOOK_DIGEST = 'row(w.updated_at, w.owner_id, w.activity_id, w.secret_hash, w.previous_secret_hash, w.previous_secret_expires_at, w.active, w.allowed_origins)::text';
const ACTIVITY_DIGEST = 'row(a.updated_at, a.level, a.owner_id, a.workflow_definition)::text';

const SWEEP_SQL = `SELECT e.id, e.user_id, u.role FROM workflow_executions e JOIN users u ON u.id = e.user_id
  WHERE e.status = 'queued' AND e.start_pending AND e.created_at < now() - make_interval(secs => $1) ORDER BY e.id LIMIT $2`;

/** What a job's payload is built from (StartedRow), and its job id. */
const JOB_COLUMNS = `e.id, e.activity_id AS "activityId", e.user_id AS "userId", e.workflow_definition AS "workflowDefinition", e.inputs,
         e.started_at AS "startedAt", e.deadline_at AS "deadlineAt", a.data_shield_policy AS "dataShieldPolicy", e.job_id AS "jobId"`;

const UNSUBMITTED_SQL = `SELECT ${JOB_COLUMNS}
    FROM workflow_executions e LEFT JOIN activities a ON a.id = e.activity_id
   WHERE e.status = 'running' AND e.last_sequence IS NULL AND e.job_id IS NOT NULL
     AND e.last_progress_at < now() - make_interval(secs => $1) AND e.last_progress_at = e.started_at
   ORDER BY e.id LIMIT $2`;

const UNSUBMITTED_RESUMES_SQL = `SELECT ${JOB_COLUMNS}, e.resume_job AS "resumeJob", e.task_states AS "taskStates", e.outputs
    FROM workflow_executions e LEFT JOIN activities a ON a.id = e.activity_id
   WHERE e.status = 'running' AND e.resume_job IS NOT NULL AND e.job_id IS NOT NULL
     AND e.last_progress_at < now() - make_interval(secs => $1) AND e.last_progress_at = e.resumed_at
   ORDER BY e.id LIMIT $2`;
