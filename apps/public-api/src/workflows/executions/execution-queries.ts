import { sqlInt, sqlLiteral, type SqlPreparedStatement } from '@docflow/persistence';
import { startQuotaCtes, type StartQuotaTerms } from '../../identity';

/** SQL of the execution hot path (see WorkflowExecutionsRepository); plain strings, so the repository stays readable. */

export const SUMMARY_COLUMNS = `id, user_id AS "userId", activity_id AS "activityId", status, inputs, results, outputs,
  started_at AS "startedAt", completed_at AS "completedAt", error, error_type AS "errorType", failed_node AS "failedNode",
  total_cost AS "totalCost", retry_of AS "retryOf", created_at AS "createdAt", updated_at AS "updatedAt"`;

export const STATUS_COLUMNS = `id, user_id AS "userId", status, task_states AS "taskStates", outputs, awaiting_node AS "awaitingNode",
  awaiting_input_schema AS "awaitingInputSchema", awaiting_since AS "awaitingSince", started_at AS "startedAt",
  completed_at AS "completedAt", error, error_type AS "errorType", failed_node AS "failedNode",
  correlation_token_sealed AS "correlationTokenSealed"`;

/**
 * Set in a transaction that announces its own execution changes after it commits (docs/decisions.md, "Execution
 * changes announced after their commit"): the `workflow_executions_changed` trigger does not fire for its updates
 * (migration 1790000000650), and its write statements return each changed row's notification payload instead.
 * Transaction-local (set_config's third argument), so it ends with the transaction, rolled back or committed.
 */
export const CALLER_ANNOUNCES = "set_config('docflow.announce', 'caller', true)";

/**
 * The notification payload of the updated row `alias` (what the trigger would have sent) when the transaction set
 * CALLER_ANNOUNCES, else null (the trigger sent it). Both read the same setting at the same moment, so each change
 * is announced exactly one way.
 */
const announcedPayload = (alias: string) => `CASE WHEN current_setting('docflow.announce', true) = 'caller' THEN docflow_execution_change_payload(${alias}) END`;

/** One statement after the commit: NOTIFY `docflow_execution_changed` ($1) with each payload of $2 (a text[]). */
export const ANNOUNCE_SQL = 'SELECT count(pg_notify($1, p))::int AS n FROM unnest($2::text[]) AS p';

const RANK_SQL = `CASE e.status WHEN 'queued' THEN 0 WHEN 'running' THEN 1 WHEN 'awaiting_user_input' THEN 2 ELSE 3 END`;

/** $1..$15: the guarded execution update; $16: the step rows (jsonb array), upserted only when the update matched. */
export const APPLY_RESULT_SQL = `
  WITH upd AS (
    UPDATE workflow_executions AS e SET
              status = $3::text,
              task_states = e.task_states || $5::jsonb,
              outputs = CASE WHEN $6::jsonb IS NULL THEN e.outputs ELSE COALESCE(e.outputs, '{}'::jsonb) || $6::jsonb END,
              results = CASE WHEN $3::text = 'completed' THEN COALESCE(e.outputs, '{}'::jsonb) || COALESCE($6::jsonb, '{}'::jsonb) ELSE e.results END,
              error = CASE WHEN $3::text = 'failed' THEN $7::text ELSE NULL END,
              error_type = CASE WHEN $3::text = 'failed' THEN $8::text ELSE NULL END,
              failed_node = CASE WHEN $3::text = 'failed' THEN $9::text ELSE NULL END,
              awaiting_node = CASE WHEN $3::text = 'awaiting_user_input' THEN $10::text ELSE NULL END,
              awaiting_input_schema = CASE WHEN $3::text = 'awaiting_user_input' THEN $11::jsonb ELSE NULL END,
              correlation_token_hash = CASE WHEN $3::text = 'awaiting_user_input' THEN $12::text ELSE NULL END,
              correlation_token_sealed = CASE WHEN $3::text = 'awaiting_user_input' THEN $13::text ELSE NULL END,
              awaiting_since = CASE WHEN $3::text = 'awaiting_user_input' THEN COALESCE($14::timestamptz, now()) ELSE NULL END,
              last_sequence = COALESCE($15::bigint, e.last_sequence),
              started_at = COALESCE(e.started_at, now()),
              completed_at = CASE WHEN $3::text IN ('completed', 'failed') THEN now() ELSE e.completed_at END,
              last_progress_at = now(),
              updated_at = now()
            WHERE e.id = $1 AND e.job_id = $2::text
              AND e.status NOT IN ('completed', 'failed', 'cancelled')
              AND $4::int >= ${RANK_SQL}
              AND ($15::bigint IS NULL OR e.last_sequence IS NULL OR $15::bigint > e.last_sequence)
            RETURNING e.id, e.status, e.user_id
  ), steps AS (
    INSERT INTO workflow_execution_steps AS s
           (execution_id, node_id, step_name, step_type, status, started_at, completed_at, duration_seconds, cost, result_summary, error, error_type)
    SELECT upd.id, r.node_id, r.step_name, r.step_type, r.status, r.started_at, r.completed_at,
           CASE WHEN r.started_at IS NOT NULL AND r.completed_at IS NOT NULL
                THEN round(greatest(extract(epoch FROM r.completed_at - r.started_at), 0)::numeric, 3) END,
           r.cost, r.result_summary, r.error, r.error_type
      FROM upd CROSS JOIN jsonb_to_recordset($16::jsonb) AS r(node_id text, step_name text, step_type text, status text,
           started_at timestamptz, completed_at timestamptz, cost numeric, result_summary text, error text, error_type text)
    ON CONFLICT (execution_id, node_id) DO UPDATE SET
           step_name = EXCLUDED.step_name,
           step_type = COALESCE(EXCLUDED.step_type, s.step_type),
           status = EXCLUDED.status,
           started_at = COALESCE(EXCLUDED.started_at, s.started_at),
           completed_at = EXCLUDED.completed_at,
           duration_seconds = CASE WHEN COALESCE(EXCLUDED.started_at, s.started_at) IS NOT NULL AND EXCLUDED.completed_at IS NOT NULL
                THEN round(greatest(extract(epoch FROM EXCLUDED.completed_at - COALESCE(EXCLUDED.started_at, s.started_at)), 0)::numeric, 3) END,
           cost = COALESCE(EXCLUDED.cost, s.cost),
           result_summary = COALESCE(EXCLUDED.result_summary, s.result_summary),
           error = EXCLUDED.error,
           error_type = EXCLUDED.error_type,
           updated_at = now()
  )
  SELECT status, user_id AS "userId" FROM upd`;

/** The columns of a results batch row (jsonb_to_recordset), in the order of APPLY_RESULT_SQL's $1..$16. */
const BATCH_COLUMNS = [
  'execution_id int',
  'job_id text',
  'status text',
  'rank int',
  'task_states jsonb',
  'outputs jsonb',
  'error text',
  'error_type text',
  'failed_node text',
  'awaiting_node text',
  'awaiting_input_schema jsonb',
  'token_hash text',
  'token_sealed text',
  'awaiting_since timestamptz',
  'sequence bigint',
  'steps jsonb',
] as const;

/** The JSON keys of a results batch row, in the order of APPLY_RESULT_SQL's $1..$16. */
export const APPLY_RESULTS_KEYS = BATCH_COLUMNS.map((c) => c.split(' ')[0] as string);

/**
 * APPLY_RESULT_SQL for many executions in one statement: $1 is a jsonb
 * array of rows (APPLY_RESULTS_KEYS), at most one per execution, $2 their
 * execution ids (int[]), each
 * guarded exactly as the single statement guards its parameters (derived
 * from it, so the two cannot drift). Answers, for every row, the execution's
 * status and owner when it applied, and its current status otherwise (null:
 * no such execution); `announce`, in a transaction that set
 * CALLER_ANNOUNCES, the notification payload of an applied row.
 */
export const APPLY_RESULTS_SQL = (() => {
  const cols = APPLY_RESULTS_KEYS.map((k) => `v.${k}`);
  const body = APPLY_RESULT_SQL.replace(/\$(\d+)/g, (_, n: string) => cols[Number(n) - 1] as string)
    // $2 (the ids again, int[]) lets the planner find the rows by primary key: it guesses 100 rows for
    // jsonb_to_recordset, and against a table of a few thousand rows chose to read the whole table and hash it.
    .replace('WHERE e.id = v.execution_id', 'FROM v WHERE e.id = ANY($2::int[]) AND e.id = v.execution_id')
    .replace('FROM upd CROSS JOIN jsonb_to_recordset(v.steps::jsonb)', 'FROM upd JOIN v ON v.execution_id = upd.id CROSS JOIN LATERAL jsonb_to_recordset(v.steps::jsonb)')
    .replace('SELECT status, user_id AS "userId" FROM upd', '')
    .replace('RETURNING e.id, e.status, e.user_id', `RETURNING e.id, e.status, e.user_id, ${announcedPayload('e')} AS announce`);
  return `WITH v AS (SELECT * FROM jsonb_to_recordset($1::jsonb) AS v(${BATCH_COLUMNS.join(', ')})),
  ${body.trim().replace(/^WITH /, '')}
  SELECT v.execution_id AS "executionId", upd.status, upd.user_id AS "userId", upd.id IS NOT NULL AS applied, upd.announce,
         (SELECT c.status FROM workflow_executions c WHERE c.id = v.execution_id) AS current
    FROM v LEFT JOIN upd ON upd.id = v.execution_id`;
})();

/**
 * The SQL-level prepared statement of a start's second statement ($1 id, $2 owner, $3 inputs or null,
 * $4 job id, $5 at, $6 cap; $7 the quota period or null, $8 and $9 the configured executions and LLM cost
 * limits). With a period, the start's count is taken in the same statement (startQuotaCtes): the update
 * runs only when the count was taken, so a start and its count commit together (one commit per start).
 * The final row is always there (`status` null: no such execution of this owner), so the quota's refusal
 * can be judged before the start's own (as when the quota was taken first). `announce`: the started row's
 * notification payload, when the message set CALLER_ANNOUNCES (startQueuedSql does).
 */
export const START_STATEMENT: SqlPreparedStatement = {
  name: 'wfx_start_v3',
  // Planned per start: the generic plan PostgreSQL kept after five runs halved webhook starts for an owner with thousands of executions.
  plan: 'custom',
  text: `PREPARE wfx_start_v3(int, int, jsonb, text, timestamptz, int, date, int, numeric) AS
   WITH cur AS (
     SELECT e.id, e.status, e.inputs = '{}'::jsonb AS stored_empty, a.execution_deadline_seconds AS secs, a.data_shield_policy
       FROM workflow_executions e LEFT JOIN activities a ON a.id = e.activity_id
      WHERE e.id = $1 AND e.user_id = $2
        FOR UPDATE OF e
   ), running AS (
     SELECT count(*)::int AS n FROM workflow_executions WHERE user_id = $2 AND status = 'running'
   ), go AS (
     SELECT 1 FROM cur, running WHERE cur.status = 'queued' AND running.n < $6 AND ($3 IS NOT NULL OR NOT cur.stored_empty)
   ), ${startQuotaCtes({ user: '$2', period: '$7', execsDefault: '$8', llmDefault: '$9', eligible: 'go' })}, upd AS (
     UPDATE workflow_executions AS e
        SET status = 'running', inputs = COALESCE($3, e.inputs), job_id = $4,
            started_at = $5, last_progress_at = $5,
            deadline_at = CASE WHEN cur.secs > 0 THEN $5 + make_interval(secs => cur.secs) END,
            last_sequence = NULL, updated_at = now()
       FROM cur, running
      WHERE e.id = cur.id AND e.status = 'queued' AND running.n < $6 AND ($3 IS NOT NULL OR NOT cur.stored_empty)
        AND ($7 IS NULL OR EXISTS (SELECT 1 FROM quota_taken))
      RETURNING e.activity_id, e.workflow_definition, e.inputs, e.started_at, e.deadline_at, ${announcedPayload('e')} AS announce
   )
   SELECT cur.status, running.n AS running, cur.stored_empty, upd.activity_id IS NOT NULL AS started,
          upd.activity_id AS "activityId", upd.workflow_definition AS "workflowDefinition", upd.inputs,
          upd.started_at AS "startedAt", upd.deadline_at AS "deadlineAt", cur.data_shield_policy AS "dataShieldPolicy",
          EXISTS (SELECT 1 FROM go) AS eligible, quota_lim.used AS quota_used, quota_lim.execs AS quota_execs,
          quota_lim.llm AS quota_llm, quota_lim.llm_used AS quota_llm_used, (SELECT executions FROM quota_taken) AS quota_counted,
          upd.announce
     FROM running LEFT JOIN cur ON true LEFT JOIN upd ON true LEFT JOIN quota_lim ON true`,
};

/** A number as an SQL literal, or NULL. */
function sqlNumberOrNull(n: number | null): string {
  if (n === null) return 'NULL';
  if (!Number.isFinite(n)) throw new Error(`not a finite number: ${n}`);
  return sqlLiteral(String(n));
}

/**
 * The two statements of a start, sent as one simple-protocol message (one
 * implicit transaction; no parameters, so values are integers or escaped
 * literals): the owner's advisory lock (and CALLER_ANNOUNCES: the caller
 * announces the start after the commit), then an EXECUTE of START_STATEMENT
 * (parsed once per connection). `quota` null: nothing is counted. See
 * WorkflowExecutionsRepository.startQueued.
 */
export function startQueuedSql(
  r: { id: number; userId: number; inputs: Record<string, unknown> | null; jobId: string; at: Date; maxRunning: number; quota: StartQuotaTerms | null },
  lockKey: number,
): string {
  const inputs = r.inputs === null ? 'NULL' : sqlLiteral(JSON.stringify(r.inputs));
  const q = r.quota;
  const quota = q === null ? 'NULL, NULL, NULL' : `${sqlLiteral(q.period)}, ${q.executionsMonthly === null ? 'NULL' : sqlInt(q.executionsMonthly)}, ${sqlNumberOrNull(q.llmCostMonthly)}`;
  return `SELECT pg_advisory_xact_lock(${sqlInt(lockKey)}, ${sqlInt(r.userId)}), ${CALLER_ANNOUNCES};
   EXECUTE ${START_STATEMENT.name}(${sqlInt(r.id)}, ${sqlInt(r.userId)}, ${inputs}, ${sqlLiteral(r.jobId)}, ${sqlLiteral(r.at.toISOString())}, ${sqlInt(r.maxRunning)}, ${quota})`;
}
