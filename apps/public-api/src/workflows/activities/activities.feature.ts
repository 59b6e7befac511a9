import { listQueryString, parseListQuery } from '@docflow/list-query';
import { NotFoundError, parseBody } from '@docflow/service-kit';
import { currentUser } from '../../identity';
import type { ApiFeature, PlatformServices } from '../../platform';
import { CreateActivityBody, InstantiateActivityBody, UpdateActivityBody } from './activities.dto';
import { describeActivityRoutes } from './activities.openapi';
import { activityListSpec, ActivitiesRepository } from './activities.repository';
import { ACTIVITY_NOT_FOUND, ActivitiesService } from './activities.service';
import { idParam, requestFields } from '../../platform';
import type { AuthGuards } from '../../identity';

export function createActivitiesService(ctx: Pick<PlatformServices, 'database'>): ActivitiesService {
  return new ActivitiesService(new ActivitiesRepository(ctx.database));
}

function activityId(value: unknown): number {
  const id = idParam(value);
  if (id === undefined) throw new NotFoundError(ACTIVITY_NOT_FOUND);
  return id;
}

/** /activities (spec 4.6). */
export const activitiesFeature: ApiFeature<Pick<PlatformServices, 'database' | 'openapi'> & { auth: AuthGuards }> = {
  name: 'activities',
  register(api, ctx) {
    const activities = createActivitiesService(ctx);
    const auth = ctx.auth.requireAuth;

    api.get('/activities', auth, async (req, res) => {
      const q = parseListQuery(listQueryString(req.originalUrl), activityListSpec);
      res.json(await activities.list(currentUser(req), q));
    });

    api.post('/activities', auth, async (req, res) => {
      res.status(201).json({ data: await activities.create(currentUser(req), parseBody(CreateActivityBody, requestFields(req.body), { message: 'Invalid activity' })) });
    });

    api.get('/activities/:id', auth, async (req, res) => {
      res.json({ data: await activities.get(currentUser(req), activityId(req.params['id'])) });
    });

    api.put('/activities/:id', auth, async (req, res) => {
      const id = activityId(req.params['id']);
      res.json({ data: await activities.update(currentUser(req), id, parseBody(UpdateActivityBody, requestFields(req.body), { message: 'Invalid activity' })) });
    });

    api.delete('/activities/:id', auth, async (req, res) => {
      res.json({ data: await activities.delete(currentUser(req), activityId(req.params['id'])) });
    });

    api.post('/activities/:id/instantiate', auth, async (req, res) => {
      const id = activityId(req.params['id']);
      res.json({ data: await activities.instantiate(currentUser(req), id, parseBody(InstantiateActivityBody, requestFields(req.body), { message: 'Invalid instantiate request' })) });
    });

    describeActivityRoutes(ctx.openapi);
  },
};
