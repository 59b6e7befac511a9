import { startPeriodic } from '@docflow/persistence';
import { errorMessage, type Logger, NotFoundError } from '@docflow/service-kit';
import type { ActivitiesRepository } from '../activities/activities.repository';
import { ACTIVITY_NOT_FOUND, type Caller, canRead } from '../activities/activities.service';
import type { AuditLog } from '../../identity';
import type { UsersService } from '../../identity';
import type { WorkflowExecutionsService } from '../executions/workflow-executions.service';
import { nextRun } from './cron';
import type { ScheduleEntity, ScheduleStatus } from './schedule.entity';
import type { ScheduleSettings } from './schedules.dto';
import type { SchedulesRepository } from './schedules.repository';

export const SCHEDULE_NOT_FOUND = 'Schedule not found';
/** Due schedules one tick takes at most (the rest wait for the next tick). */
const CLAIM_LIMIT = 50;

export interface ScheduleView {
  id: number;
  name: string;
  activity: { id: number };
  cron_expression: string;
  timezone: string;
  is_active: boolean;
  skip_if_running: boolean;
  inputs: Record<string, unknown>;
  last_run_at: string | null;
  next_run_at: string | null;
  last_status: ScheduleStatus;
  last_execution_id: number | null;
  last_error: string | null;
  run_count: number;
  failure_count: number;
  createdAt: string;
  updatedAt: string;
}

function view(s: ScheduleEntity): ScheduleView {
  return {
    id: s.id,
    name: s.name,
    activity: { id: s.activityId },
    cron_expression: s.cronExpression,
    timezone: s.timezone,
    is_active: s.isActive,
    skip_if_running: s.skipIfRunning,
    inputs: s.inputs,
    last_run_at: s.lastRunAt ? s.lastRunAt.toISOString() : null,
    next_run_at: s.nextRunAt ? s.nextRunAt.toISOString() : null,
    last_status: s.lastStatus,
    last_execution_id: s.lastExecutionId,
    last_error: s.lastError,
    run_count: s.runCount,
    failure_count: s.failureCount,
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
  };
}

export interface SchedulesServiceDeps {
  repo: SchedulesRepository;
  activities: ActivitiesRepository;
  users: UsersService;
  executions: WorkflowExecutionsService;
  audit: AuditLog;
  logger: Logger;
}

/** Workflow schedules (spec 2.15, 6): the owner's cron triggers and the tick that fires them. */
export class SchedulesService {
  constructor(private readonly deps: SchedulesServiceDeps) {}

  private async checkActivity(user: Caller, activityId: number): Promise<void> {
    const a = await this.deps.activities.findForExecution(activityId);
    if (!a || !canRead(user, a)) throw new NotFoundError(ACTIVITY_NOT_FOUND);
  }

  private async owned(ownerId: number, id: number): Promise<ScheduleEntity> {
    const s = await this.deps.repo.findOwned(id, ownerId);
    if (!s) throw new NotFoundError(SCHEDULE_NOT_FOUND);
    return s;
  }

  async list(ownerId: number): Promise<ScheduleView[]> {
    return (await this.deps.repo.listOwned(ownerId)).map(view);
  }

  async get(ownerId: number, id: number): Promise<ScheduleView> {
    return view(await this.owned(ownerId, id));
  }

  async create(user: Caller, s: ScheduleSettings & { name: string; activityId: number; cronExpression: string }): Promise<ScheduleView> {
    await this.checkActivity(user, s.activityId);
    const timezone = s.timezone ?? 'UTC';
    const isActive = s.isActive ?? true;
    const created = await this.deps.repo.insert({
      ownerId: user.id,
      activityId: s.activityId,
      name: s.name,
      cronExpression: s.cronExpression,
      timezone,
      isActive,
      skipIfRunning: s.skipIfRunning ?? true,
      inputs: s.inputs ?? {},
      nextRunAt: isActive ? nextRun(s.cronExpression, timezone, new Date()) : null,
    });
    return view(created);
  }

  /** A changed expression, time zone or activation sets the next run anew (none while paused). */
  async update(user: Caller, id: number, s: ScheduleSettings): Promise<ScheduleView> {
    const current = await this.owned(user.id, id);
    if (s.activityId !== undefined) await this.checkActivity(user, s.activityId);
    const cron = s.cronExpression ?? current.cronExpression;
    const timezone = s.timezone ?? current.timezone;
    const isActive = s.isActive ?? current.isActive;
    const timing = s.cronExpression !== undefined || s.timezone !== undefined || s.isActive !== undefined;
    const updated = await this.deps.repo.update(id, user.id, { ...s, ...(timing ? { nextRunAt: isActive ? nextRun(cron, timezone, new Date()) : null } : {}) });
    if (!updated) throw new NotFoundError(SCHEDULE_NOT_FOUND);
    return view(updated);
  }

  async delete(ownerId: number, id: number): Promise<void> {
    if (!(await this.deps.repo.delete(id, ownerId))) throw new NotFoundError(SCHEDULE_NOT_FOUND);
  }

  /**
   * One scheduler pass at `now`: records how the last runs ended, then
   * starts every due schedule's workflow with its inputs, as its owner,
   * unless skip_if_running and its previous run is still active. Missed
   * ticks (the service was down) give one run, then the next is counted
   * from now. Returns the ids of the executions started.
   */
  async tick(now: Date = new Date()): Promise<number[]> {
    const { repo, logger } = this.deps;
    await repo.settleFinishedRuns();
    const due = await repo.claimDue(now, CLAIM_LIMIT, (s) => nextRun(s.cronExpression, s.timezone, now));
    const started: number[] = [];
    for (const s of due) {
      if (s.skipIfRunning && s.lastExecutionId !== null && (await repo.executionActive(s.lastExecutionId))) {
        logger.info('scheduled run skipped: the previous run is still active', { scheduleId: s.id, executionId: s.lastExecutionId });
        continue;
      }
      try {
        const owner = await this.deps.users.findById(s.ownerId);
        if (!owner || owner.blocked) throw new Error('the schedule’s owner cannot run workflows');
        const caller: Caller = { id: owner.id, role: owner.role };
        const run = await this.deps.executions.createAndStart(caller, { activityId: s.activityId, inputs: s.inputs });
        await repo.recordStart(s.id, run.execution_id);
        this.deps.audit.record({ action: 'workflow.schedule.triggered', actorUserId: owner.id, details: { schedule_id: s.id, execution_id: run.execution_id } });
        started.push(run.execution_id);
      } catch (err) {
        const message = errorMessage(err);
        logger.warn('scheduled run failed to start', { scheduleId: s.id, error: message });
        await repo.recordFailure(s.id, message);
      }
    }
    return started;
  }
}

/** Runs `tick` every intervalMs (main); a pass still running is not doubled. */
export function startScheduler(service: SchedulesService, logger: Logger, intervalMs: number): { stop(): Promise<void> } {
  return startPeriodic(async () => {
    await service.tick().catch((err: unknown) => logger.warn('scheduler pass failed', { error: errorMessage(err) }));
  }, intervalMs);
}
