import { JOB_ID_PATTERN, JOB_PURGE_MAX, JOB_TYPES, JobPurgeRequest, type JobType, WorkflowJobPayload } from '@docflow/contracts';
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
    // A job id or type the router would refuse is our bug, caught before sending. The payload is not
    // validated again here: the router checks it with the JobRequest contract, and the workflow
    // definition inside was validated once, where the execution stored it (docs/decisions.md,
    // "Workflow definitions: validated where stored"); a class-validator pass here deep-copied it on every start.
    if (submission.jobId.length === 0 || submission.jobId.length > 200 || !JOB_ID_PATTERN.test(submission.jobId) || !JOB_TYPES.includes(submission.jobType)) {
      throw new Error(`invalid job request ${submission.jobId}: job_id must be 1 to 200 letters, digits or . _ : -, job_type one of ${JOB_TYPES.join(', ')}`);
    }
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
