import { DataSource, In } from 'typeorm';
import { preparedRows } from '@docflow/persistence';
import type { JobStatus, JobType, QueueName, ResultStatus } from '@docflow/contracts';
import { JOB_STATUS_RANK, lastEffectiveUpdates } from './job-status';
import { RouterJobEntity } from './router-job.entity';

export interface NewRouterJob {
  jobId: string;
  jobType: JobType;
  queue: QueueName;
}

export interface ResultUpdate {
  status: ResultStatus;
  result: Record<string, unknown> | null;
  error: string | null;
}

/** SQL for the rank of a status expression, generated from JOB_STATUS_RANK so the two cannot drift. */
function RANK_SQL(expr: string): string {
  const cases = Object.entries(JOB_STATUS_RANK)
    .map(([status, rank]) => `WHEN '${status}' THEN ${rank}`)
    .join(' ');
  return `(CASE ${expr}::text ${cases} END)`;
}

/**
 * A batch of results ($1 job ids, $2 statuses, $3 the results as one JSON
 * array, in the same order, `null` for none; $4 errors; see `applyResults`).
 * The results travel as one jsonb value rather than a jsonb[]: an array
 * parameter is sent as an array literal, which node-postgres builds by
 * escaping every quote and backslash of every result's JSON text (1.2 % of
 * the router's busy time in the pipeline bench's profile). The rows are
 * found with `job_id = ANY($1)` rather than through the unnest: in the
 * generic plan of the prepared statement PostgreSQL guesses 100 rows for an
 * unnest of parameters and read the whole table to hash it, for every batch.
 */
export const APPLY_RESULTS_SQL = `WITH v AS (
  SELECT v.job_id, v.status, NULLIF(v.result, 'null'::jsonb) AS result, v.error
    FROM unnest($1::text[], $2::text[], ARRAY(SELECT r FROM jsonb_array_elements($3::jsonb) WITH ORDINALITY AS t(r, i) ORDER BY i), $4::text[]) AS v(job_id, status, result, error)
), cur AS (
  SELECT j.job_id, j.status FROM router_jobs j WHERE j.job_id = ANY($1::text[]) ORDER BY j.job_id FOR UPDATE
), upd AS (
  UPDATE router_jobs j
     SET status = v.status, result = v.result, error = v.error, updated_at = now(),
         completed_at = CASE WHEN v.status IN ('completed', 'failed') THEN now() ELSE NULL END
    FROM cur JOIN v ON v.job_id = cur.job_id
   WHERE j.job_id = ANY($1::text[]) AND j.job_id = cur.job_id
     AND cur.status NOT IN ('completed', 'failed')
     AND ${RANK_SQL('v.status')} >= ${RANK_SQL('cur.status')}
  RETURNING j.job_id
)
SELECT v.job_id AS "jobId", cur.status AS current, upd.job_id IS NOT NULL AS applied
  FROM v LEFT JOIN cur ON cur.job_id = v.job_id LEFT JOIN upd ON upd.job_id = v.job_id`;

/** A result for one job, as a batch carries it. */
export interface JobResultUpdate extends ResultUpdate {
  jobId: string;
}

export type ApplyOutcome = { outcome: 'applied'; from: JobStatus } | { outcome: 'ignored'; from: JobStatus } | { outcome: 'unknown' };

export class RouterJobsRepository {
  constructor(private readonly ds: DataSource) {}

  /** Inserts the job as `queued`; false when the job id is taken. */
  async insertQueued(job: NewRouterJob): Promise<boolean> {
    return (await this.insertQueuedMany([job])).has(job.jobId);
  }

  /**
   * Inserts the jobs as `queued` in one statement (one commit for a batch of
   * submissions); answers the ids it inserted: an id already taken, or named
   * twice, is inserted once. Prepared once per connection: three arrays
   * whatever the batch size.
   */
  async insertQueuedMany(jobs: NewRouterJob[]): Promise<Set<string>> {
    if (jobs.length === 0) return new Set();
    const rows = await preparedRows<{ job_id: string }>(
      this.ds,
      'router_insert_queued_many',
      `INSERT INTO router_jobs (job_id, job_type, queue, status)
       SELECT j.job_id, j.job_type, j.queue, 'queued' FROM unnest($1::text[], $2::text[], $3::text[]) AS j (job_id, job_type, queue)
       ON CONFLICT (job_id) DO NOTHING
       RETURNING job_id`,
      [jobs.map((j) => j.jobId), jobs.map((j) => j.jobType), jobs.map((j) => j.queue)],
    );
    return new Set(rows.map((r) => r.job_id));
  }

  /**
   * Of these job ids, those still `queued`, with their job type: a job whose
   * row was committed but whose message may never have reached its queue (the
   * router stopped between the two) is still queued when its caller retries.
   */
  async stillQueued(jobIds: string[]): Promise<Map<string, string>> {
    if (jobIds.length === 0) return new Map();
    const rows = (await this.ds.query(`SELECT job_id, job_type FROM router_jobs WHERE job_id = ANY($1::text[]) AND status = 'queued'`, [jobIds])) as {
      job_id: string;
      job_type: string;
    }[];
    return new Map(rows.map((r) => [r.job_id, r.job_type]));
  }

  async delete(jobId: string): Promise<void> {
    await this.ds.getRepository(RouterJobEntity).delete({ jobId });
  }

  /** Deletes the jobs with these ids; answers how many there were. */
  async deleteMany(jobIds: string[]): Promise<number> {
    if (jobIds.length === 0) return 0;
    const result = await this.ds.getRepository(RouterJobEntity).delete({ jobId: In(jobIds) });
    return result.affected ?? 0;
  }

  /**
   * Deletes up to `limit` jobs untouched for `days` (retention,
   * EXECUTION_RETENTION_DAYS): the execution record in the public API keeps
   * what the user sees; a job this old is only the relay's bookkeeping.
   */
  async pruneBatch(days: number, limit: number): Promise<number> {
    const result = (await this.ds.query(
      `DELETE FROM router_jobs WHERE job_id = ANY(ARRAY(
         SELECT job_id FROM router_jobs WHERE updated_at < now() - make_interval(days => $1) LIMIT $2))`,
      [days, limit],
    )) as [unknown[], number];
    return result[1];
  }

  findById(jobId: string): Promise<RouterJobEntity | null> {
    return this.ds.getRepository(RouterJobEntity).findOneBy({ jobId });
  }

  /** Applies one results message; see `applyResults`. */
  async applyResult(jobId: string, update: ResultUpdate): Promise<ApplyOutcome> {
    const outcomes = await this.applyResults([{ jobId, ...update }]);
    return outcomes.get(jobId) ?? { outcome: 'unknown' };
  }

  /**
   * Applies a batch of results messages in one statement (so one
   * transaction): per job, the update that applying them in order would
   * leave (`lastEffectiveUpdates`), guarded like `decideTransition` (a
   * terminal job never changes; a lower rank is stale). The rows are locked
   * in job id order, so batches of concurrent consumers cannot deadlock.
   * Answers each job's outcome.
   */
  async applyResults(updates: readonly JobResultUpdate[]): Promise<Map<string, ApplyOutcome>> {
    const rows = lastEffectiveUpdates(updates);
    const found = await preparedRows<{ jobId: string; current: JobStatus | null; applied: boolean }>(this.ds, 'router_apply_results_v2', APPLY_RESULTS_SQL, [
      rows.map((r) => r.jobId),
      rows.map((r) => r.status),
      JSON.stringify(rows.map((r) => r.result)),
      rows.map((r) => r.error),
    ]);
    const outcomes = new Map<string, ApplyOutcome>();
    for (const row of found) {
      outcomes.set(row.jobId, row.current === null ? { outcome: 'unknown' } : { outcome: row.applied ? 'applied' : 'ignored', from: row.current });
    }
    return outcomes;
  }
}
