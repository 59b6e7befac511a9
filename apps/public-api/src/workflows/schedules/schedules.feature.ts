import { NotFoundError } from '@docflow/service-kit';
import { ActivitiesRepository } from '../activities/activities.repository';
import { idParam } from '../../platform';
import { currentUser } from '../../identity';
import type { ApiFeature, PlatformServices } from '../../platform';
import { parseCreateSchedule, parseUpdateSchedule } from './schedules.dto';
import { describeScheduleRoutes, SCHEDULE_PATHS } from './schedules.openapi';
import { SchedulesRepository } from './schedules.repository';
import { SCHEDULE_NOT_FOUND, SchedulesService } from './schedules.service';
import type { AuthGuards, AuditLog, UsersService } from '../../identity';
import type { ExecutionServices } from '../executions/workflow-executions.feature';

function scheduleId(value: unknown): number {
  const id = idParam(value);
  if (id === undefined) throw new NotFoundError(SCHEDULE_NOT_FOUND);
  return id;
}

/**
 * Workflow schedules (spec 2.15; their routes are not given): CRUD under
 * /workflow-schedules and the alias /schedules. `service()` is the use case
 * behind them, for main's scheduler, once the feature is registered.
 */
export function createSchedulesFeature(): { feature: ApiFeature; service(): SchedulesService } {
  let service: SchedulesService | undefined;
  const feature: ApiFeature<Pick<PlatformServices, 'database' | 'logger' | 'openapi'> & { auth: AuthGuards; users: UsersService; audit: AuditLog; executions: ExecutionServices }> = {
    name: 'schedules',
    register(api, ctx) {
      const schedules = new SchedulesService({
        repo: new SchedulesRepository(ctx.database),
        activities: new ActivitiesRepository(ctx.database),
        users: ctx.users,
        executions: ctx.executions.executions,
        audit: ctx.audit,
        logger: ctx.logger.child({ component: 'scheduler' }),
      });
      service = schedules;
      const { requireAuth } = ctx.auth;
      for (const base of SCHEDULE_PATHS) {
        api.get(base, requireAuth, async (req, res) => {
          res.json({ data: await schedules.list(currentUser(req).id) });
        });
        api.post(base, requireAuth, async (req, res) => {
          const settings = parseCreateSchedule(req.body);
          res.status(201).json({ data: await schedules.create(currentUser(req), settings) });
        });
        api.get(`${base}/:id`, requireAuth, async (req, res) => {
          res.json({ data: await schedules.get(currentUser(req).id, scheduleId(req.params['id'])) });
        });
        api.put(`${base}/:id`, requireAuth, async (req, res) => {
          const id = scheduleId(req.params['id']);
          const settings = parseUpdateSchedule(req.body);
          res.json({ data: await schedules.update(currentUser(req), id, settings) });
        });
        api.delete(`${base}/:id`, requireAuth, async (req, res) => {
          await schedules.delete(currentUser(req).id, scheduleId(req.params['id']));
          res.json({ data: { id: Number(req.params['id']) } });
        });
      }
      describeScheduleRoutes(ctx.openapi);
    },
  };
  return {
    feature,
    service() {
      if (!service) throw new Error('the schedules feature is not registered');
      return service;
    },
  };
}
