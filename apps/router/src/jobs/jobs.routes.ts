import type express from 'express';
import { requireApiKey } from '@docflow/internal-auth';
import { JobPurgeRequest } from '@docflow/contracts';
import { BadRequestError, parseBody } from '@docflow/service-kit';
import { parseJobRequest } from './job-request';
import type { JobsService } from './jobs.service';

/** POST /api/v1/jobs, GET /api/v1/jobs/:job_id and POST /api/v1/jobs/purge (account deletion), all behind `X-API-Key`. */
export function mountJobRoutes(app: express.Express, jobs: JobsService, apiKey: string): void {
  const auth = requireApiKey('x-api-key', apiKey);

  app.post('/api/v1/jobs', auth, async (req, res) => {
    res.status(200).json(await jobs.submit(parseJobRequest(req.body)));
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
