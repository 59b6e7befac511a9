import { NotFoundError } from '@docflow/service-kit';
import { ActivitiesRepository } from '../activities/activities.repository';
import { ACTIVITY_NOT_FOUND } from '../activities/activities.service';
import { idParam } from '../../platform';
import { currentUser } from '../../identity';
import type { ApiFeature, PlatformServices } from '../../platform';
import { parseErrorsLimit, parsePeriod } from './analytics-query';
import { describeAnalyticsRoutes } from './workflow-analytics.openapi';
import { WorkflowAnalyticsRepository } from './workflow-analytics.repository';
import { WorkflowAnalyticsService } from './workflow-analytics.service';
import type { AuthGuards } from '../../identity';

/** GET /workflows/metrics/overview, /workflows/errors/recent and /workflows/{activityId}/analytics (spec 4.7). */
export const workflowAnalyticsFeature: ApiFeature<Pick<PlatformServices, 'database' | 'openapi'> & { auth: AuthGuards }> = {
  name: 'workflow-analytics',
  register(api, ctx) {
    const analytics = new WorkflowAnalyticsService({ repo: new WorkflowAnalyticsRepository(ctx.database), activities: new ActivitiesRepository(ctx.database) });
    const auth = ctx.auth.requireAuth;

    // The two fixed paths go first; `:activityId` only matches .../analytics anyway.
    api.get('/workflows/metrics/overview', auth, async (req, res) => {
      res.json({ data: await analytics.overview(currentUser(req), parsePeriod(req.query['period'])) });
    });

    api.get('/workflows/errors/recent', auth, async (req, res) => {
      res.json({ data: await analytics.recentErrors(currentUser(req), parseErrorsLimit(req.query['limit'])) });
    });

    api.get('/workflows/:activityId/analytics', auth, async (req, res) => {
      const id = idParam(req.params['activityId']);
      if (id === undefined) throw new NotFoundError(ACTIVITY_NOT_FOUND);
      res.json({ data: await analytics.activity(currentUser(req), id) });
    });

    describeAnalyticsRoutes(ctx.openapi);
  },
};
