import { AsyncResource } from 'node:async_hooks';
import { JobAcceptedResponse, JobMessageV1, JobPurgeResponse, JobRequest, JobStatusResponse, QueueName, queueForJobType } from '@docflow/contracts';
import type { Broker } from '@docflow/messaging';
import { GroupCommit, GroupCommitOptions, ItemOutcome } from '@docflow/persistence';
import { ConflictError, currentContext, errorMessage, Logger, NotFoundError, runWithContext } from '@docflow/service-kit';
import type { RouterMetrics } from '../metrics';
import type { RouterJobsRepository } from './router-jobs.repository';

export interface JobsServiceDeps {
  jobs: RouterJobsRepository;
  broker: Pick<Broker, 'publish'>;
  metrics: RouterMetrics;
  logger: Logger;
  /** Group commit of submissions: at most `maxItems` per batch (default 64), `lingerMs` (≤ 2, default 0) for a queue to grow. */
  batch?: Partial<GroupCommitOptions>;
}

/** A submission waiting for its batch: the request, its queue, and its publish bound to the caller's async context. */
interface Submission {
  req: JobRequest;
  queue: QueueName;
  publish(): Promise<void>;
}

/** Submissions per batch at most: one INSERT of that many rows, that many confirms awaited together. */
export const SUBMIT_BATCH_MAX = 64;

/** Submission and status of router jobs (spec 4.16). */
export class JobsService {
  private readonly submissions: GroupCommit<Submission, JobAcceptedResponse>;

  constructor(private readonly deps: JobsServiceDeps) {
    this.submissions = new GroupCommit((batch) => this.register(batch), { maxItems: SUBMIT_BATCH_MAX, lingerMs: 0, ...deps.batch });
  }

  /**
   * Records the job as queued, then publishes it with a publisher confirm.
   * Concurrent submissions are grouped (docs/decisions.md, "Router job
   * registrations and execution starts grouped"): one INSERT for the batch, the batch's publishes
   * sent together and their confirms awaited together; each caller still
   * gets its own answer only once its row is committed and its message
   * confirmed. A `token` in the request is dropped: never stored, never
   * published. A job id already taken answers 409 to its own request only.
   * When the broker does not take a job, its row is removed and the error
   * (503) propagates: a job is never acknowledged unless it is on its queue.
   */
  submit(req: JobRequest): Promise<JobAcceptedResponse> {
    return this.submissions.submit(this.submission(req));
  }

  /**
   * Jobs that came in one request (POST /api/v1/jobs/batch): registered as one
   * batch of `submit` (one INSERT, confirms awaited together; SUBMIT_BATCH_MAX per
   * INSERT), each with the outcome its own submission would have had, each
   * message under its own correlation id when one is given. A database error
   * fails the whole call, as it fails a grouped batch. The batch does not wait
   * for the grouped submissions' flush in flight: a duplicate across the two is
   * refused by the row's primary key all the same.
   */
  async submitBatch(items: { req: JobRequest; correlationId?: string }[]): Promise<ItemOutcome<JobAcceptedResponse>[]> {
    const context = currentContext();
    const submissions = items.map(({ req, correlationId }) => (correlationId ? runWithContext({ ...context, correlationId }, () => this.submission(req)) : this.submission(req)));
    const outcomes: ItemOutcome<JobAcceptedResponse>[] = [];
    for (let i = 0; i < submissions.length; i += SUBMIT_BATCH_MAX) outcomes.push(...(await this.register(submissions.slice(i, i + SUBMIT_BATCH_MAX))));
    return outcomes;
  }

  private submission(req: JobRequest): Submission {
    const queue = queueForJobType(req.job_type);
    const message: JobMessageV1 = {
      version: 1,
      job_id: req.job_id,
      job_type: req.job_type,
      payload: req.payload,
      submitted_at: new Date().toISOString(),
    };
    // Bound here so that the publish carries this request's correlation id and trace, whichever request's flush sends it.
    const publish = AsyncResource.bind(() => this.deps.broker.publish(queue, JobMessageV1, message, { messageId: req.job_id }));
    return { req, queue, publish };
  }

  /** One batch: one multi-row INSERT, the inserted jobs' publishes awaited together, failed ones removed in one DELETE. */
  private async register(batch: Submission[]): Promise<ItemOutcome<JobAcceptedResponse>[]> {
    const { jobs, metrics, logger } = this.deps;
    const inserted = await jobs.insertQueuedMany(batch.map((s) => ({ jobId: s.req.job_id, jobType: s.req.job_type, queue: s.queue })));
    // An id named twice in one batch is inserted for its first submission; the later ones are duplicates.
    const owners = new Set<string>();
    const mine = batch.map((s) => {
      const own = inserted.has(s.req.job_id) && !owners.has(s.req.job_id);
      if (own) owners.add(s.req.job_id);
      return own;
    });
    // A retry of a job whose row is committed and still queued is published again: the router may have stopped
    // between its commit and its publish, and the retry is then the only way the job reaches its queue. A repeat
    // delivery has one effect (processors and results are idempotent per job id); a different job under a taken id is not sent.
    const taken = batch.filter((s, i) => !mine[i] && !owners.has(s.req.job_id)).map((s) => s.req.job_id);
    const queued = await jobs.stillQueued(taken);
    const resend = batch.map((s, i) => !mine[i] && !owners.has(s.req.job_id) && queued.get(s.req.job_id) === s.req.job_type);
    const published = await Promise.allSettled(batch.map((s, i) => (mine[i] || resend[i] ? s.publish() : Promise.resolve())));
    const failed = batch.filter((s, i) => mine[i] && published[i]?.status === 'rejected').map((s) => s.req.job_id);
    if (failed.length) {
      await jobs.deleteMany(failed).catch((cleanup: unknown) => logger.error('could not remove jobs that were not queued', { jobIds: failed, error: errorMessage(cleanup) }));
    }
    return batch.map((s, i): ItemOutcome<JobAcceptedResponse> => {
      const { req, queue } = s;
      const result = published[i];
      if (resend[i] && result?.status === 'rejected') {
        logger.warn('queued job not published again', { jobId: req.job_id, queue, error: errorMessage(result.reason) });
        return { ok: false, error: result.reason };
      }
      if (resend[i]) logger.info('job still queued; published again for its retry', { jobId: req.job_id, queue });
      if (!mine[i]) return { ok: false, error: new ConflictError(`Job ${req.job_id} already exists`, { job_id: req.job_id }) };
      if (result?.status === 'rejected') {
        logger.warn('job not queued', { jobId: req.job_id, jobType: req.job_type, queue, error: errorMessage(result.reason) });
        return { ok: false, error: result.reason };
      }
      metrics.jobsSubmitted.inc({ job_type: req.job_type });
      logger.info('job queued', { jobId: req.job_id, jobType: req.job_type, queue });
      return { ok: true, value: { job_id: req.job_id, success: true, message: `Job queued on ${queue}` } };
    });
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
