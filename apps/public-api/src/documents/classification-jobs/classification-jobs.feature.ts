import { NotFoundError, parseBody } from '@docflow/service-kit';
import { idParam, requestFields } from '../../platform';
import { currentUser } from '../../identity';
import type { ApiFeature, PlatformServices } from '../../platform';
import { RouterClient } from '../../platform';
import { GenerateJobBody } from './classification-jobs.dto';
import { describeClassificationJobRoutes } from './classification-jobs.openapi';
import { ClassificationJobsRepository } from './classification-jobs.repository';
import { ClassificationJobsService, COLLECTION_NOT_FOUND, JOB_NOT_FOUND } from './classification-jobs.service';
import type { AuthGuards } from '../../identity';

const JOB_ID = /^[A-Za-z0-9._:-]{1,200}$/;

export function createClassificationJobsService(ctx: Pick<PlatformServices, 'config' | 'database' | 'logger'>): ClassificationJobsService {
  const logger = ctx.logger.child({ component: 'classification-jobs' });
  return new ClassificationJobsService({
    repo: new ClassificationJobsRepository(ctx.database),
    router: new RouterClient({ baseUrl: ctx.config.ROUTER_URL, apiKey: ctx.config.ROUTER_API_KEY, logger }),
    publicBaseUrl: ctx.config.PUBLIC_BASE_URL,
    logger,
    jobUserSecret: ctx.config.INTERNAL_SERVICE_JWT_SECRET,
  });
}

/** Classification jobs (spec 4.5): POST /jobs/collection/{collection_id}/generate and GET /jobs/{job_id}/status. */
export const classificationJobsFeature: ApiFeature<Pick<PlatformServices, 'config' | 'database' | 'logger' | 'openapi'> & { auth: AuthGuards }> = {
  name: 'classification-jobs',
  register(api, ctx) {
    const jobs = createClassificationJobsService(ctx);
    const auth = ctx.auth.requireAuth;

    api.post('/jobs/collection/:collection_id/generate', auth, async (req, res) => {
      const collectionId = idParam(req.params['collection_id']);
      if (collectionId === undefined) throw new NotFoundError(COLLECTION_NOT_FOUND);
      res.json(await jobs.submit(currentUser(req), collectionId, parseBody(GenerateJobBody, requestFields(req.body), { message: 'Invalid job request' })));
    });

    api.get('/jobs/:job_id/status', auth, async (req, res) => {
      const jobId = req.params['job_id'];
      if (typeof jobId !== 'string' || !JOB_ID.test(jobId)) throw new NotFoundError(JOB_NOT_FOUND);
      res.json(await jobs.status(currentUser(req), jobId));
    });

    describeClassificationJobRoutes(ctx.openapi);
  },
};
