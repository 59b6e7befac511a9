import type express from 'express';
import { requireApiKey } from '@docflow/internal-auth';
import { JobPurgeRequest } from '@docflow/contracts';
import { appErrorOf, BadRequestError, errorBody, type Logger, parseBody } from '@docflow/service-kit';
import { parseJobBatch } from './job-batch';
import { parseJobRequest } from './job-request';
import type { JobsService } from './jobs.service';

/** One job's outcome in the answer of POST /api/v1/jobs/batch: the status and body POST /api/v1/jobs would have answered. */
export interface JobBatchOutcome {
  job_id?: string;
  status: number;
  body: unknown;
}

/**
 * POST /api/v1/jobs, POST /api/v1/jobs/batch, GET /api/v1/jobs/:job_id and
 * POST /api/v1/jobs/purge (account deletion), all behind `X-API-Key`.
 */
export function mountJobRoutes(app: express.Express, jobs: JobsService, apiKey: string, logger: Logger): void {
  const auth = requireApiKey('x-api-key', apiKey);

  app.post('/api/v1/jobs', auth, async (req, res) => {
    res.status(200).json(await jobs.submit(parseJobRequest(req.body)));
  });

  // Several jobs in one request (the public API's grouped starts): one INSERT, their confirms awaited together, and per
  // job what /api/v1/jobs would have answered (docs/decisions.md, "Router job submissions in batches"). 200 as a whole
  // once every job has its outcome; a failure of the whole batch (the database) is the error /api/v1/jobs would answer.
  app.post('/api/v1/jobs/batch', auth, async (req, res) => {
    const items = parseJobBatch(req.body);
    const accepted = items.flatMap((item) => (item.ok ? [{ req: item.req, correlationId: item.correlationId }] : []));
    const outcomes = accepted.length ? await jobs.submitBatch(accepted) : [];
    let next = 0;
    const where = { method: req.method, path: req.path };
    const results = items.map((item): JobBatchOutcome => {
      const outcome = item.ok ? outcomes[next++]! : { ok: false as const, error: item.error };
      const jobId = item.ok ? item.req.job_id : item.jobId;
      if (outcome.ok) return { job_id: jobId, status: 200, body: outcome.value };
      const err = appErrorOf(logger, outcome.error, where);
      return { ...(jobId !== undefined ? { job_id: jobId } : {}), status: err.status, body: errorBody('internal', err) };
    });
    res.status(200).json({ results });
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
