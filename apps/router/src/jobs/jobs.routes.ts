import type express from 'express';
import type { IncomingHttpHeaders, RequestListener } from 'node:http';
import { apiKeyRefusal, requireApiKey } from '@docflow/internal-auth';
import { JobAcceptedResponse, JobPurgeRequest } from '@docflow/contracts';
import { appErrorOf, BadRequestError, errorBody, type LaneRoute, type Logger, type Metrics, parseBody, requestLane } from '@docflow/service-kit';
import { parseJobBatch } from './job-batch';
import { parseJobRequest } from './job-request';
import type { JobsService } from './jobs.service';

/** One job's outcome in the answer of POST /api/v1/jobs/batch: the status and body POST /api/v1/jobs would have answered. */
export interface JobBatchOutcome {
  job_id?: string;
  status: number;
  body: unknown;
}

export const API_KEY_HEADER = 'x-api-key';

/** POST /api/v1/jobs: the job registered and published (spec 4.16). */
function submitOne(jobs: JobsService, body: unknown): Promise<JobAcceptedResponse> {
  return jobs.submit(parseJobRequest(body));
}

/**
 * POST /api/v1/jobs/batch: several jobs in one request (the public API's grouped starts): one INSERT, their confirms
 * awaited together, and per job what /api/v1/jobs would have answered (docs/decisions.md, "Router job submissions in
 * batches"). 200 as a whole once every job has its outcome; a failure of the whole batch (the database) is the error
 * /api/v1/jobs would answer.
 */
async function submitBatch(jobs: JobsService, logger: Logger, body: unknown, where: { method: string; path: string }): Promise<{ results: JobBatchOutcome[] }> {
  const items = parseJobBatch(body);
  const accepted = items.flatMap((item) => (item.ok ? [{ req: item.req, correlationId: item.correlationId }] : []));
  const outcomes = accepted.length ? await jobs.submitBatch(accepted) : [];
  let next = 0;
  const results = items.map((item): JobBatchOutcome => {
    const outcome = item.ok ? outcomes[next++]! : { ok: false as const, error: item.error };
    const jobId = item.ok ? item.req.job_id : item.jobId;
    if (outcome.ok) return { job_id: jobId, status: 200, body: outcome.value };
    const err = appErrorOf(logger, outcome.error, where);
    return { ...(jobId !== undefined ? { job_id: jobId } : {}), status: err.status, body: errorBody('internal', err) };
  });
  return { results };
}

/**
 * POST /api/v1/jobs, POST /api/v1/jobs/batch, GET /api/v1/jobs/:job_id and
 * POST /api/v1/jobs/purge (account deletion), all behind `X-API-Key`.
 */
export function mountJobRoutes(app: express.Express, jobs: JobsService, apiKey: string, logger: Logger): void {
  const auth = requireApiKey(API_KEY_HEADER, apiKey);

  app.post('/api/v1/jobs', auth, async (req, res) => {
    res.status(200).json(await submitOne(jobs, req.body));
  });

  app.post('/api/v1/jobs/batch', auth, async (req, res) => {
    res.status(200).json(await submitBatch(jobs, logger, req.body, { method: req.method, path: req.path }));
  });

  app.post('/api/v1/jobs/purge', auth, async (req, res) => {
    const { job_ids } = parseBody(JobPurgeRequest, req.body);
    res.status(200).json(await jobs.purge(job_ids));
  });

  app.get('/api/v1/jobs/:job_id', auth, async (req, res) => {
    const jobId = req.params['job_id'];
    if (typeof jobId !== 'string' || !jobId) throw new BadRequestError('job_id is required');
    res.status(200).json(await jobs.status(jobId));
  });
}

export interface JobLaneOptions {
  jobs: JobsService;
  apiKey: string;
  logger: Logger;
  metrics: Metrics;
  /** The express app (createApp): every other request, and any the lane does not take, goes there. */
  fallback: RequestListener;
  /** createHttpApp's body limit, in bytes. */
  maxBodyBytes: number;
}

/**
 * POST /api/v1/jobs and POST /api/v1/jobs/batch, the two requests of every
 * job, served by the service kit's request lane ahead of express (express's
 * router, body parser and middleware stack were most of a short request's
 * CPU in the public API: docs/decisions.md, "A request lane for the execution
 * routes"), with the same handlers as the express routes above, the same key
 * check (after the body's 400s, as express runs requireApiKey after its body
 * parser) and the same answers. What the lane does not take (see
 * requestLane) goes to express.
 */
export function jobLane(options: JobLaneOptions): RequestListener {
  const { jobs, apiKey, logger } = options;
  const authorised = (headers: IncomingHttpHeaders) => {
    const refused = apiKeyRefusal(headers[API_KEY_HEADER], API_KEY_HEADER, apiKey);
    if (refused) throw refused;
  };
  // The route's path is also its metric label, as express's route path is.
  const post = (path: string, handle: (body: unknown) => Promise<unknown>): LaneRoute<true> => ({
    method: 'POST',
    path: new RegExp(`^${path.replace(/\//g, '\\/')}$`),
    label: path,
    admit: (_req, query) => (query === undefined ? true : undefined),
    handle: async ({ req, body }) => {
      authorised(req.headers);
      return { status: 200, body: await handle(body) };
    },
  });
  return requestLane({
    routes: [post('/api/v1/jobs', (body) => submitOne(jobs, body)), post('/api/v1/jobs/batch', (body) => submitBatch(jobs, logger, body, { method: 'POST', path: '/api/v1/jobs/batch' }))],
    fallback: options.fallback,
    maxBodyBytes: options.maxBodyBytes,
    errorStyle: 'internal',
    logger,
    metrics: options.metrics,
  });
}
