import { JobAcceptedResponse, JobMessageV1, JobPurgeResponse, JobRequest, JobStatusResponse, queueForJobType } from '@docflow/contracts';
import type { Broker } from '@docflow/messaging';
import { ConflictError, errorMessage, Logger, NotFoundError } from '@docflow/service-kit';
import type { RouterMetrics } from '../metrics';
import type { RouterJobsRepository } from './router-jobs.repository';

export interface JobsServiceDeps {
  jobs: RouterJobsRepository;
  broker: Pick<Broker, 'publish'>;
  metrics: RouterMetrics;
  logger: Logger;
}

/** Submission and status of router jobs (spec 4.16). */
export class JobsService {
  constructor(private readonly deps: JobsServiceDeps) {}

  /**
   * Records the job as queued, then publishes it with a publisher confirm.
   * A `token` in the request is dropped: never stored, never published.
   * When the broker does not take it, the row is removed and the error (503)
   * propagates: a job is never acknowledged unless it is on its queue.
   */
  async submit(req: JobRequest): Promise<JobAcceptedResponse> {
    const { jobs, broker, metrics, logger } = this.deps;
    const queue = queueForJobType(req.job_type);
    const inserted = await jobs.insertQueued({ jobId: req.job_id, jobType: req.job_type, queue });
    if (!inserted) throw new ConflictError(`Job ${req.job_id} already exists`, { job_id: req.job_id });
    const message: JobMessageV1 = {
      version: 1,
      job_id: req.job_id,
      job_type: req.job_type,
      payload: req.payload,
      submitted_at: new Date().toISOString(),
    };
    try {
      await broker.publish(queue, JobMessageV1, message, { messageId: req.job_id });
    } catch (err) {
      await jobs.delete(req.job_id).catch((cleanup: unknown) => logger.error('could not remove a job that was not queued', { jobId: req.job_id, error: errorMessage(cleanup) }));
      logger.warn('job not queued', { jobId: req.job_id, jobType: req.job_type, queue, error: errorMessage(err) });
      throw err;
    }
    metrics.jobsSubmitted.inc({ job_type: req.job_type });
    logger.info('job queued', { jobId: req.job_id, jobType: req.job_type, queue });
    return { job_id: req.job_id, success: true, message: `Job queued on ${queue}` };
  }

  /** Deletes the named jobs' records (an account deletion, issue #18); a job it does not hold is skipped. */
  async purge(jobIds: string[]): Promise<JobPurgeResponse> {
    const deleted = await this.deps.jobs.deleteMany(jobIds);
    this.deps.logger.info('jobs purged', { requested: jobIds.length, deleted });
    return { deleted };
  }

  async status(jobId: string): Promise<JobStatusResponse> {
    const row = await this.deps.jobs.findById(jobId);
    if (!row) throw new NotFoundError(`Job ${jobId} not found`, { job_id: jobId });
    return {
      job_id: row.jobId,
      success: true,
      message: `Job is ${row.status}`,
      status: row.status,
      job_type: row.jobType,
      result: row.result,
      error: row.error,
      metadata: {
        status: row.status,
        created_at: row.createdAt.toISOString(),
        updated_at: row.updatedAt.toISOString(),
        queue: row.queue,
        completed_at: row.completedAt ? row.completedAt.toISOString() : null,
      },
    };
  }
}
