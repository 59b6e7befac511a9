import { NotFoundError } from '@docflow/service-kit';
import type { ActivitiesRepository } from '../activities/activities.repository';
import { ACTIVITY_NOT_FOUND, canRead, type Caller } from '../activities/activities.service';
import type { AnalyticsPeriod } from './analytics-query';
import { summarizeInputs, type InputSummaryValue } from './inputs-summary';
import type { AnalyticsScope, ActivityFigures, DayBucket, OverviewTotals, RecentErrorRow, WorkflowAnalyticsRepository, WorkflowBreakdown } from './workflow-analytics.repository';

/** GET /workflows/metrics/overview (spec 4.7). */
export type OverviewView = { period: string } & OverviewTotals & { by_workflow: WorkflowBreakdown[]; by_day: DayBucket[] };

/** GET /workflows/{activityId}/analytics (spec 4.7). */
export type ActivityAnalyticsView = { activity_id: number; workflow_name: string } & ActivityFigures;

export type RecentErrorView = Omit<RecentErrorRow, 'input_previews'> & { inputs_summary: Record<string, InputSummaryValue> };

/** GET /workflows/errors/recent (spec 4.7). */
export interface RecentErrorsView {
  errors: RecentErrorView[];
  total: number;
  by_error_type: Record<string, number>;
}

/**
 * A caller's analytics cover the executions they created; a super
 * administrator's cover every user's (as they may read any execution).
 */
export function scopeOf(user: Caller): AnalyticsScope {
  return user.role === 'super_admin' ? { kind: 'all' } : { kind: 'user', userId: user.id };
}

export interface WorkflowAnalyticsDeps {
  repo: WorkflowAnalyticsRepository;
  activities: ActivitiesRepository;
}

/** Execution analytics (spec 4.7): every figure comes from one aggregate query. */
export class WorkflowAnalyticsService {
  constructor(private readonly deps: WorkflowAnalyticsDeps) {}

  async overview(user: Caller, period: AnalyticsPeriod): Promise<OverviewView> {
    const f = await this.deps.repo.overview(scopeOf(user), period.interval);
    return { period: period.name, ...f.totals, by_workflow: f.by_workflow, by_day: f.by_day };
  }

  /** 404 `Activity not found` unless the caller may read the activity (system, own, or any for a super administrator). */
  async activity(user: Caller, activityId: number): Promise<ActivityAnalyticsView> {
    const activity = await this.deps.activities.findById(activityId);
    if (!activity || !canRead(user, activity)) throw new NotFoundError(ACTIVITY_NOT_FOUND);
    const f = await this.deps.repo.activity(scopeOf(user), activity.id);
    return { activity_id: activity.id, workflow_name: activity.name, ...f };
  }

  async recentErrors(user: Caller, limit: number): Promise<RecentErrorsView> {
    const f = await this.deps.repo.recentErrors(scopeOf(user), limit);
    return {
      errors: f.errors.map(({ input_previews, ...rest }) => ({ ...rest, inputs_summary: summarizeInputs(input_previews) })),
      total: f.total,
      by_error_type: f.by_error_type,
    };
  }
}
