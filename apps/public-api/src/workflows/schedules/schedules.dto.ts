import { BadRequestError } from '@docflow/service-kit';
import { isPlainObject } from '@docflow/workflow';
import { requestFields } from '../../platform';
import { cronProblem, isTimeZone } from './cron';

export interface ScheduleSettings {
  name?: string;
  activityId?: number;
  cronExpression?: string;
  timezone?: string;
  isActive?: boolean;
  skipIfRunning?: boolean;
  inputs?: Record<string, unknown>;
}

/** The column widths: workflow_schedules.cron_expression is varchar(120), ids are PostgreSQL integers. */
const CRON_MAX = 120;
const INT_MAX = 2_147_483_647;

function readSettings(fields: Record<string, unknown>, errors: string[]): ScheduleSettings {
  const out: ScheduleSettings = {};
  const { name, cron_expression, timezone, is_active, skip_if_running, inputs } = fields;
  const activity = fields['activity'] ?? fields['activity_id'];
  if (name !== undefined) {
    if (typeof name !== 'string' || name.trim() === '' || name.length > 255) errors.push('name: must be a non-empty string of at most 255 characters');
    else out.name = name.trim();
  }
  if (activity !== undefined) {
    const raw = isPlainObject(activity) ? activity['id'] : activity;
    if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 1 || raw > INT_MAX) errors.push('activity: must be an activity id');
    else out.activityId = raw;
  }
  if (cron_expression !== undefined) {
    const problem =
      typeof cron_expression !== 'string'
        ? 'cron_expression: must be a string'
        : cron_expression.trim().replace(/\s+/g, ' ').length > CRON_MAX
          ? `cron_expression: must be at most ${CRON_MAX} characters`
          : cronProblem(cron_expression);
    if (problem) errors.push(problem);
    else out.cronExpression = (cron_expression as string).trim().replace(/\s+/g, ' ');
  }
  if (timezone !== undefined) {
    if (typeof timezone !== 'string' || !isTimeZone(timezone)) errors.push('timezone: must be an IANA time zone name such as UTC or Europe/Paris');
    else out.timezone = timezone;
  }
  for (const [key, value, set] of [
    ['is_active', is_active, (v: boolean) => (out.isActive = v)],
    ['skip_if_running', skip_if_running, (v: boolean) => (out.skipIfRunning = v)],
  ] as const) {
    if (value === undefined) continue;
    if (typeof value !== 'boolean') errors.push(`${key}: must be true or false`);
    else set(value);
  }
  if (inputs !== undefined) {
    if (!isPlainObject(inputs)) errors.push('inputs: must be an object');
    else out.inputs = inputs;
  }
  return out;
}

/** A new schedule: name, activity and cron_expression required (spec 2.15); wrapped or flat. */
export function parseCreateSchedule(body: unknown): ScheduleSettings & { name: string; activityId: number; cronExpression: string } {
  const fields = requestFields(body);
  const errors: string[] = [];
  const s = readSettings(fields, errors);
  for (const [key, value] of [
    ['name', s.name],
    ['activity', s.activityId],
    ['cron_expression', s.cronExpression],
  ] as const) {
    if (value === undefined && fields[key === 'activity' ? 'activity' : key] === undefined && !(key === 'activity' && fields['activity_id'] !== undefined)) errors.push(`${key}: is required`);
  }
  if (errors.length > 0 || s.name === undefined || s.activityId === undefined || s.cronExpression === undefined) throw BadRequestError.withErrors('Invalid schedule', errors);
  return { ...s, name: s.name, activityId: s.activityId, cronExpression: s.cronExpression };
}

export function parseUpdateSchedule(body: unknown): ScheduleSettings {
  const fields = requestFields(body);
  const errors: string[] = [];
  const s = readSettings(fields, errors);
  if (errors.length === 0 && Object.keys(s).length === 0) errors.push('give at least one of name, activity, cron_expression, timezone, is_active, skip_if_running, inputs');
  if (errors.length > 0) throw BadRequestError.withErrors('Invalid schedule', errors);
  return s;
}
