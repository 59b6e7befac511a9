import { JOB_ID_PATTERN, JOB_PURGE_MAX, JOB_TYPES, JobPurgeRequest, type JobType, WorkflowJobPayload } from '@docflow/contracts';
import { bodyText, InternalHttpClient, type InternalResponse } from '@docflow/internal-http';
import { AsyncResource } from 'node:async_hooks';
import { GroupCommit, type ItemOutcome } from '@docflow/persistence';
import { currentCorrelationId, errorMessage, Logger, ServiceUnavailableError, validatePlain } from '@docflow/service-kit';

export interface RouterClientOptions {
  /** `{router_url}`, e.g. http://127.0.0.1:8010 (ROUTER_URL). */
  baseUrl: string;
  /** Sent as `X-API-Key` (ROUTER_API_KEY). */
  apiKey: string;
  logger: Logger;
  /** How long one submission (or one batch of them) may take. Default 10000. */
  timeoutMs?: number;
  /** Most jobs in one POST /api/v1/jobs/batch. Default ROUTER_BATCH_MAX. */
  batchMax?: number;
}

/** Jobs per POST /api/v1/jobs/batch at most (the router takes up to 64 and registers them in one INSERT). */
export const ROUTER_BATCH_MAX = 32;

/** A submission waiting for its request: the job, its caller's correlation id, and its own request bound to its caller's context. */
interface PendingSubmission {
  submission: JobSubmission;
  correlationId: string | undefined;
  alone(): Promise<SubmitOutcome>;
}

export interface WorkflowJobSubmission {
  jobId: string;
  payload: WorkflowJobPayload;
}

/** A job of any type for the router (spec 4.16); the payload is forwarded to the processor unmodified. */
export interface JobSubmission {
  jobId: string;
  jobType: JobType;
  payload: Record<string, unknown>;
}

/**
 * `queued`: the router took the job (200). `duplicate`: the router already
 * holds a job with this id (409), which means an earlier submission of the
 * same job reached it; the job is on its queue either way.
 */
export type SubmitOutcome = 'queued' | 'duplicate';

/** The router answered something other than 200/409, or could not be reached in time. A 503 for HTTP callers. */
export class RouterUnavailableError extends ServiceUnavailableError {
  constructor(
    message: string,
    readonly routerStatus?: number,
  ) {
    super(message, {}, 'router_unavailable');
  }
}

/** Each submission sent alone (POST /api/v1/jobs), side by side: one outcome each. */
async function settleEach(batch: PendingSubmission[]): Promise<ItemOutcome<SubmitOutcome>[]> {
  const settled = await Promise.allSettled(batch.map((p) => p.alone()));
  return settled.map((r) => (r.status === 'fulfilled' ? { ok: true, value: r.value } : { ok: false, error: r.reason }));
}

/** The public API's client of the router's job API (spec 4.16). */
export class RouterClient {
  private readonly http: InternalHttpClient;
  /** One request to the router at a time: a group of the submissions that came meanwhile (or in the same turn). */
  private readonly submissions: GroupCommit<PendingSubmission, SubmitOutcome>;

  constructor(private readonly options: RouterClientOptions) {
    // Every execution start goes through here: libs/internal-http's kept-alive node:http sockets, and a request
    // reset before any answer sent once more (safe: the router refuses a job id twice, and a duplicate counts as queued).
    this.http = new InternalHttpClient({ service: 'router', baseUrl: options.baseUrl, auth: { kind: 'api-key', key: options.apiKey }, timeoutMs: options.timeoutMs ?? 10000 });
    this.submissions = new GroupCommit((batch) => this.send(batch), { maxItems: options.batchMax ?? ROUTER_BATCH_MAX, lingerMs: 0, gatherTurn: true });
  }

  /** Closes kept-alive sockets. */
  close(): void {
    this.http.close();
  }

  /** Submits a `task_based_workflow` job. Throws RouterUnavailableError unless the router has the job afterwards. */
  submitWorkflowJob(submission: WorkflowJobSubmission): Promise<SubmitOutcome> {
    return this.submitJob({ jobId: submission.jobId, jobType: 'task_based_workflow', payload: submission.payload as unknown as Record<string, unknown> });
  }

  /**
   * Submits a job of any type (classification, document_extraction, OCR, ...). Throws RouterUnavailableError unless the router has the job afterwards.
   *
   * Submissions are grouped (docs/decisions.md, "Router job submissions in batches"): those made in the same turn
   * of the event loop, or while a request to the router is in flight, go together in one POST /api/v1/jobs/batch
   * (the router registers them in one INSERT and awaits their confirms together); a submission alone is sent
   * to POST /api/v1/jobs as before. Each caller gets its own job's outcome, with the meaning it had alone.
   */
  submitJob(submission: JobSubmission): Promise<SubmitOutcome> {
    // A job id or type the router would refuse is our bug, caught before sending. The payload is not
    // validated again here: the router checks it with the JobRequest contract, and the workflow
    // definition inside was validated once, where the execution stored it (docs/decisions.md,
    // "Workflow definitions: validated where stored"); a class-validator pass here deep-copied it on every start.
    if (submission.jobId.length === 0 || submission.jobId.length > 200 || !JOB_ID_PATTERN.test(submission.jobId) || !JOB_TYPES.includes(submission.jobType)) {
      return Promise.reject(new Error(`invalid job request ${submission.jobId}: job_id must be 1 to 200 letters, digits or . _ : -, job_type one of ${JOB_TYPES.join(', ')}`));
    }
    // Bound here so that a submission sent alone carries its own caller's correlation id and trace, whoever sends it.
    const alone = AsyncResource.bind(() => this.submitAlone(submission));
    return this.submissions.submit({ submission, correlationId: currentCorrelationId(), alone });
  }

  /** One request: a submission alone to POST /api/v1/jobs, several to POST /api/v1/jobs/batch. */
  private async send(batch: PendingSubmission[]): Promise<ItemOutcome<SubmitOutcome>[]> {
    if (batch.length === 1) return settleEach(batch);
    return this.submitBatch(batch);
  }

  /** One job, POST /api/v1/jobs. */
  private async submitAlone(submission: JobSubmission): Promise<SubmitOutcome> {
    const body = { job_id: submission.jobId, job_type: submission.jobType, payload: submission.payload };
    let response: InternalResponse;
    try {
      response = await this.http.request({ method: 'POST', path: '/api/v1/jobs', json: body });
    } catch (err) {
      this.options.logger.warn('router unreachable', { jobId: submission.jobId, error: errorMessage(err) });
      throw new RouterUnavailableError('The job router is unavailable; retry later');
    }
    return this.outcomeOf(submission.jobId, response.status, response.body);
  }

  /**
   * Several jobs, POST /api/v1/jobs/batch: each settled with the outcome of its own job. When the router cannot
   * be reached or answers the batch with an error, every job of it gets RouterUnavailableError (the router
   * registers a batch in one transaction: a database error takes none of them); a router without the batch
   * route (404, during a rolling upgrade) gets the jobs one by one.
   */
  private async submitBatch(batch: PendingSubmission[]): Promise<ItemOutcome<SubmitOutcome>[]> {
    const jobs = batch.map(({ submission, correlationId }) => ({
      job_id: submission.jobId,
      job_type: submission.jobType,
      payload: submission.payload,
      ...(correlationId ? { correlation_id: correlationId } : {}),
    }));
    let response: InternalResponse;
    try {
      response = await this.http.request({ method: 'POST', path: '/api/v1/jobs/batch', json: { jobs } });
    } catch (err) {
      this.options.logger.warn('router unreachable', { jobIds: jobs.map((j) => j.job_id), error: errorMessage(err) });
      throw new RouterUnavailableError('The job router is unavailable; retry later');
    }
    if (response.status === 404) return settleEach(batch);
    const results = response.status === 200 && response.body && typeof response.body === 'object' ? (response.body as { results?: unknown }).results : undefined;
    if (!Array.isArray(results) || results.length !== batch.length) {
      this.options.logger.warn('router refused a job batch', { jobIds: jobs.map((j) => j.job_id), status: response.status, body: bodyText(response.body, 300) });
      throw this.unavailable(response.status === 200 ? 502 : response.status);
    }
    return batch.map((p, i): ItemOutcome<SubmitOutcome> => {
      const result = results[i] as { job_id?: unknown; status?: unknown; body?: unknown } | null;
      const status = result && result.job_id === p.submission.jobId && typeof result.status === 'number' ? result.status : 502;
      try {
        return { ok: true, value: this.outcomeOf(p.submission.jobId, status, result?.body) };
      } catch (error) {
        return { ok: false, error };
      }
    });
  }

  /** 200/201: queued; 409: the router already holds the job; anything else: RouterUnavailableError. */
  private outcomeOf(jobId: string, status: number, body: unknown): SubmitOutcome {
    if (status === 200 || status === 201) return 'queued';
    if (status === 409) {
      this.options.logger.info('router already holds this job', { jobId });
      return 'duplicate';
    }
    this.options.logger.warn('router refused the job', { jobId, status, body: bodyText(body, 300) });
    throw this.unavailable(status);
  }

  private unavailable(status: number): RouterUnavailableError {
    return new RouterUnavailableError(status === 503 ? 'The job router cannot queue jobs right now; retry later' : `The job router refused the job (status ${status})`, status);
  }

  /**
   * Deletes the router's records of these jobs (POST {router_url}/api/v1/jobs/purge,
   * an account deletion), JOB_PURGE_MAX per request; answers how many it held.
   * Throws RouterUnavailableError when the router cannot be reached or refuses.
   */
  async purgeJobs(jobIds: readonly string[]): Promise<number> {
    let deleted = 0;
    for (let i = 0; i < jobIds.length; i += JOB_PURGE_MAX) {
      const body = { job_ids: jobIds.slice(i, i + JOB_PURGE_MAX) };
      const checked = validatePlain(JobPurgeRequest, body);
      if (!checked.ok) throw new Error(`invalid job purge request: ${checked.errors.join('; ')}`);
      let response: InternalResponse;
      try {
        response = await this.http.request({ method: 'POST', path: '/api/v1/jobs/purge', json: body });
      } catch (err) {
        this.options.logger.warn('router unreachable', { error: errorMessage(err) });
        throw new RouterUnavailableError('The job router is unavailable; retry later');
      }
      const count = response.body && typeof response.body === 'object' ? (response.body as { deleted?: unknown }).deleted : undefined;
      if (response.status !== 200 || typeof count !== 'number') {
        this.options.logger.warn('router refused a job purge', { status: response.status, body: bodyText(response.body, 300) });
        throw new RouterUnavailableError(`The job router refused the purge (status ${response.status})`, response.status);
      }
      deleted += count;
    }
    return deleted;
  }
}
