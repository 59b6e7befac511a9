import http from 'node:http';
import https from 'node:https';
import { JOB_STATUSES, JobRequest, type JobStatusResponse, type JobType, WorkflowJobPayload } from '@docflow/contracts';
import { CORRELATION_HEADER, currentCorrelationId, Logger, ServiceUnavailableError, validatePlain } from '@docflow/service-kit';

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
  constructor(message: string, readonly routerStatus?: number) {
    super(message, {}, 'router_unavailable');
  }
}

interface TextResponse {
  status: number;
  text: string;
}

/** The public API's client of the router's job API (spec 4.16). */
export class RouterClient {
  private readonly url: string;
  private readonly timeoutMs: number;

  private readonly agent: http.Agent;
  private readonly transport: typeof http | typeof https;

  constructor(private readonly options: RouterClientOptions) {
    this.url = `${options.baseUrl.replace(/\/+$/, '')}/api/v1/jobs`;
    this.timeoutMs = options.timeoutMs ?? 10000;
    // node:http with kept-alive sockets: every execution start goes through here, and fetch's
    // streams, abort-signal timers and Response objects cost more CPU than the router's own work.
    this.transport = new URL(this.url).protocol === 'https:' ? https : http;
    this.agent = new this.transport.Agent({ keepAlive: true, maxSockets: 64 });
  }

  /** Closes kept-alive sockets. */
  close(): void {
    this.agent.destroy();
  }

  /**
   * One request with the API key; rejects on a network error or no complete
   * answer within the timeout. A kept-alive socket the router closed while
   * idle fails with ECONNRESET when reused: that request is sent once more
   * on a new socket (safe: the router refuses a job id twice, and a
   * duplicate counts as queued).
   */
  private async send(method: 'GET' | 'POST', url: string, body?: string): Promise<TextResponse> {
    try {
      return await this.sendOnce(method, url, body);
    } catch (err) {
      if ((err as { staleSocket?: boolean }).staleSocket) return this.sendOnce(method, url, body);
      throw err;
    }
  }

  private sendOnce(method: 'GET' | 'POST', url: string, body?: string): Promise<TextResponse> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string | number> = { 'x-api-key': this.options.apiKey };
      // The router publishes under the caller's correlation id, so one id follows a request to the processors.
      const correlationId = currentCorrelationId();
      if (correlationId !== undefined) headers[CORRELATION_HEADER] = correlationId;
      if (body !== undefined) {
        headers['content-type'] = 'application/json';
        headers['content-length'] = Buffer.byteLength(body);
      }
      const req = this.transport.request(url, { method, headers, agent: this.agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      });
      const timer = setTimeout(() => req.destroy(new Error(`no answer within ${this.timeoutMs} ms`)), this.timeoutMs);
      req.on('close', () => clearTimeout(timer));
      req.on('error', (err: Error & { code?: string }) => {
        const failure = new Error(err.code ? `${err.message} (${err.code})` : err.message) as Error & { staleSocket?: boolean };
        failure.staleSocket = req.reusedSocket && err.code === 'ECONNRESET';
        reject(failure);
      });
      req.end(body);
    });
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

    let response: TextResponse;
    try {
      response = await this.send('POST', this.url, JSON.stringify(body));
    } catch (err) {
      this.options.logger.warn('router unreachable', { jobId: submission.jobId, error: err instanceof Error ? err.message : String(err) });
      throw new RouterUnavailableError('The job router is unavailable; retry later');
    }
    const text = response.text;
    if (response.status === 200 || response.status === 201) return 'queued';
    if (response.status === 409) {
      this.options.logger.info('router already holds this job', { jobId: submission.jobId });
      return 'duplicate';
    }
    this.options.logger.warn('router refused the job', { jobId: submission.jobId, status: response.status, body: text.slice(0, 300) });
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
    let response: TextResponse;
    try {
      response = await this.send('GET', `${this.url}/${encodeURIComponent(jobId)}`);
    } catch (err) {
      this.options.logger.warn('router unreachable', { jobId, error: err instanceof Error ? err.message : String(err) });
      throw new RouterUnavailableError('The job router is unavailable; retry later');
    }
    const text = response.text;
    if (response.status === 404) return null;
    if (response.status !== 200) {
      this.options.logger.warn('router refused a status read', { jobId, status: response.status, body: text.slice(0, 300) });
      throw new RouterUnavailableError(`The job router could not read the job (status ${response.status})`, response.status);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text) as unknown;
    } catch {
      parsed = undefined;
    }
    const status = parsed && typeof parsed === 'object' ? (parsed as { status?: unknown }).status : undefined;
    if (typeof status !== 'string' || !(JOB_STATUSES as readonly string[]).includes(status)) {
      this.options.logger.warn('router answered a status read without a known status', { jobId });
      throw new RouterUnavailableError('The job router answered an unreadable job status');
    }
    return parsed as JobStatusResponse;
  }
}

