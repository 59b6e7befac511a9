import { DataSource } from 'typeorm';
import type { JobStatus, JobType, QueueName, ResultStatus } from '@docflow/contracts';
import { decideTransition, isTerminal } from './job-status';
import { RouterJobEntity } from './router-job.entity';

export interface NewRouterJob {
  jobId: string;
  jobType: JobType;
  queue: QueueName;
  token: string | null;
}

export interface ResultUpdate {
  status: ResultStatus;
  result: Record<string, unknown> | null;
  error: string | null;
}

export type ApplyOutcome = { outcome: 'applied'; from: JobStatus } | { outcome: 'ignored'; from: JobStatus } | { outcome: 'unknown' };

export class RouterJobsRepository {
  constructor(private readonly ds: DataSource) {}

  /** Inserts the job as `queued`; false when the job id is taken. */
  async insertQueued(job: NewRouterJob): Promise<boolean> {
    const rows: unknown[] = await this.ds.query(
      `INSERT INTO router_jobs (job_id, job_type, queue, status, token)
       VALUES ($1, $2, $3, 'queued', $4)
       ON CONFLICT (job_id) DO NOTHING
       RETURNING job_id`,
      [job.jobId, job.jobType, job.queue, job.token],
    );
    return rows.length === 1;
  }

  async delete(jobId: string): Promise<void> {
    await this.ds.getRepository(RouterJobEntity).delete({ jobId });
  }

  findById(jobId: string): Promise<RouterJobEntity | null> {
    return this.ds.getRepository(RouterJobEntity).findOneBy({ jobId });
  }

  /**
   * Applies a results message under a row lock, so concurrent messages for
   * one job serialise and the monotonic rule holds whatever order they arrive in.
   */
  applyResult(jobId: string, update: ResultUpdate): Promise<ApplyOutcome> {
    return this.ds.transaction(async (m) => {
      const repo = m.getRepository(RouterJobEntity);
      const row = await repo.findOne({ where: { jobId }, lock: { mode: 'pessimistic_write' } });
      if (!row) return { outcome: 'unknown' };
      if (decideTransition(row.status, update.status) === 'ignore') return { outcome: 'ignored', from: row.status };
      await m.query(
        `UPDATE router_jobs
            SET status = $2, result = $3::jsonb, error = $4, updated_at = now(),
                completed_at = CASE WHEN $5::boolean THEN now() ELSE NULL END
          WHERE job_id = $1`,
        [jobId, update.status, update.result === null ? null : JSON.stringify(update.result), update.error, isTerminal(update.status)],
      );
      return { outcome: 'applied', from: row.status };
    });
  }
}
