import { DataSource, In } from 'typeorm';
import { preparedRows } from '@docflow/persistence';
import type { JobStatus, JobType, QueueName, ResultStatus } from '@docflow/contracts';
import { isTerminal, JOB_STATUS_RANK } from './job-status';
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

  /**
   * Applies a results message in one statement: the row lock taken by the
   * CTE serialises concurrent messages for one job, and the guard mirrors
   * `decideTransition` (a terminal job never changes; a lower rank is stale).
   */
  async applyResult(jobId: string, update: ResultUpdate): Promise<ApplyOutcome> {
    const rows = await preparedRows<{ current: JobStatus | null; applied: boolean }>(
      this.ds,
      'router_apply_result',
      `WITH cur AS (
         SELECT job_id, status FROM router_jobs WHERE job_id = $1 FOR UPDATE
       ), upd AS (
         UPDATE router_jobs j
            SET status = $2, result = $3::jsonb, error = $4, updated_at = now(),
                completed_at = CASE WHEN $5::boolean THEN now() ELSE NULL END
           FROM cur
          WHERE j.job_id = cur.job_id
            AND cur.status NOT IN ('completed', 'failed')
            AND ${RANK_SQL('$2')} >= ${RANK_SQL('cur.status')}
         RETURNING 1
       )
       SELECT (SELECT status FROM cur) AS current, EXISTS (SELECT 1 FROM upd) AS applied`,
      [jobId, update.status, update.result === null ? null : JSON.stringify(update.result), update.error, isTerminal(update.status)],
    );
    const row = rows[0];
    if (!row || row.current === null) return { outcome: 'unknown' };
    return { outcome: row.applied ? 'applied' : 'ignored', from: row.current };
  }
}
