import type express from 'express';
import { requireApiKey } from '@docflow/internal-auth';
import { BadRequestError } from '@docflow/service-kit';
import { parseJobRequest } from './job-request';
import type { JobsService } from './jobs.service';

/** POST /api/v1/jobs and GET /api/v1/jobs/:job_id, both behind `X-API-Key`. */
export function mountJobRoutes(app: express.Express, jobs: JobsService, apiKey: string): void {
  const auth = requireApiKey('x-api-key', apiKey);

  app.post('/api/v1/jobs', auth, async (req, res) => {
    res.status(200).json(await jobs.submit(parseJobRequest(req.body)));
  });

  app.get('/api/v1/jobs/:job_id', auth, async (req, res) => {
    const jobId = req.params['job_id'];
    if (typeof jobId !== 'string' || !jobId) throw new BadRequestError('job_id is required');
    res.status(200).json(await jobs.status(jobId));
  });
}
