import { JOB_PURGE_MAX, JOB_STATUSES, JobPurgeRequest, JobRequest, type JobStatusResponse, type JobType, WorkflowJobPayload } from '@docflow/contracts';
import { bodyText, InternalHttpClient, type InternalResponse } from '@docflow/internal-http';
import { errorMessage, Logger, ServiceUnavailableError, validatePlain } from '@docflow/service-kit';

export interface RouterClientOptions {
  /** `{router_url}`, e.g. http://127.0.0.1:8010 (ROUTER_URL). */
  baseUrl: string;
  /** Sent as `X-API-Key` (ROUTER_API_KEY). */
  apiKey: string;
  logger: Logger;
  /** How long one submission may take. Default 10000. */
  timeoutMs?: number;
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

/** The public API's client of the router's job API (spec 4.16). */
export class RouterClient {
  private readonly http: InternalHttpClient;

  constructor(private readonly options: RouterClientOptions) {
    // Every execution start goes through here: libs/internal-http's kept-alive node:http sockets, and a request
    // reset before any answer sent once more (safe: the router refuses a job id twice, and a duplicate counts as queued).
    this.http = new InternalHttpClient({ service: 'router', baseUrl: options.baseUrl, auth: { kind: 'api-key', key: options.apiKey }, timeoutMs: options.timeoutMs ?? 10000 });
  }

  /** Closes kept-alive sockets. */
  close(): void {
    this.http.close();
  }

  /** Submits a `task_based_workflow` job. Throws RouterUnavailableError unless the router has the job afterwards. */
  submitWorkflowJob(submission: WorkflowJobSubmission): Promise<SubmitOutcome> {
    return this.submitJob({ jobId: submission.jobId, jobType: 'task_based_workflow', payload: submission.payload as unknown as Record<string, unknown> });
  }

  /** Submits a job of any type (classification, document_extraction, OCR, ...). Throws RouterUnavailableError unless the router has the job afterwards. */
  async submitJob(submission: JobSubmission): Promise<SubmitOutcome> {
    const body = {
      job_id: submission.jobId,
      job_type: submission.jobType,
      payload: submission.payload,
    };
    // The same contract class the router validates with: a bad request is our bug, caught before sending.
    const checked = validatePlain(JobRequest, body);
    if (!checked.ok) throw new Error(`invalid job request ${submission.jobId}: ${checked.errors.join('; ')}`);

    let response: InternalResponse;
    try {
      response = await this.http.request({ method: 'POST', path: '/api/v1/jobs', json: body });
    } catch (err) {
      this.options.logger.warn('router unreachable', { jobId: submission.jobId, error: errorMessage(err) });
      throw new RouterUnavailableError('The job router is unavailable; retry later');
    }
    if (response.status === 200 || response.status === 201) return 'queued';
    if (response.status === 409) {
      this.options.logger.info('router already holds this job', { jobId: submission.jobId });
      return 'duplicate';
    }
    this.options.logger.warn('router refused the job', { jobId: submission.jobId, status: response.status, body: bodyText(response.body, 300) });
    throw new RouterUnavailableError(
      response.status === 503 ? 'The job router cannot queue jobs right now; retry later' : `The job router refused the job (status ${response.status})`,
      response.status,
    );
  }

  /**
   * The router's record of a job (GET {router_url}/api/v1/jobs/{job_id}), or
   * null when the router does not know it. Throws RouterUnavailableError when
   * the router cannot be reached or answers anything else.
   */
  async getJob(jobId: string): Promise<JobStatusResponse | null> {
    let response: InternalResponse;
    try {
      response = await this.http.request({ method: 'GET', path: `/api/v1/jobs/${encodeURIComponent(jobId)}` });
    } catch (err) {
      this.options.logger.warn('router unreachable', { jobId, error: errorMessage(err) });
      throw new RouterUnavailableError('The job router is unavailable; retry later');
    }
    if (response.status === 404) return null;
    if (response.status !== 200) {
      this.options.logger.warn('router refused a status read', { jobId, status: response.status, body: bodyText(response.body, 300) });
      throw new RouterUnavailableError(`The job router could not read the job (status ${response.status})`, response.status);
    }
    const parsed = response.body;
    const status = parsed && typeof parsed === 'object' ? (parsed as { status?: unknown }).status : undefined;
    if (typeof status !== 'string' || !(JOB_STATUSES as readonly string[]).includes(status)) {
      this.options.logger.warn('router answered a status read without a known status', { jobId });
      throw new RouterUnavailableError('The job router answered an unreadable job status');
    }
    return parsed as JobStatusResponse;
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
