import { BadRequestError, parseBody, Satisfies } from '@docflow/service-kit';
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
const INVALID_SCHEDULE = 'Invalid schedule';

const normalCron = (value: string) => value.trim().replace(/\s+/g, ' ');
const activityIdOf = (value: unknown) => (isPlainObject(value) ? value['id'] : value);
const isActivityId = (raw: unknown): raw is number => typeof raw === 'number' && Number.isInteger(raw) && raw >= 1 && raw <= INT_MAX;

function nameProblems(name: unknown): string[] {
  return name === undefined || (typeof name === 'string' && name.trim() !== '' && name.length <= 255) ? [] : ['name: must be a non-empty string of at most 255 characters'];
}

function activityProblems(activity: unknown): string[] {
  return activity === undefined || isActivityId(activityIdOf(activity)) ? [] : ['activity: must be an activity id'];
}

function cronProblems(cron: unknown): string[] {
  if (cron === undefined) return [];
  if (typeof cron !== 'string') return ['cron_expression: must be a string'];
  if (normalCron(cron).length > CRON_MAX) return [`cron_expression: must be at most ${CRON_MAX} characters`];
  const problem = cronProblem(cron);
  return problem ? [problem] : [];
}

const timezoneProblems = (timezone: unknown) =>
  timezone === undefined || (typeof timezone === 'string' && isTimeZone(timezone)) ? [] : ['timezone: must be an IANA time zone name such as UTC or Europe/Paris'];
const inputsProblems = (inputs: unknown) => (inputs === undefined || isPlainObject(inputs) ? [] : ['inputs: must be an object']);
const booleanProblems = (key: string) => (value: unknown) => (value === undefined || typeof value === 'boolean' ? [] : [`${key}: must be true or false`]);
const required =
  (key: string, problems: (value: unknown) => string[]) =>
  (value: unknown): string[] =>
    value === undefined ? [`${key}: is required`] : problems(value);

/** PUT /workflow-schedules/{id}: any of the settings (spec 2.15); `activity` is also read from `activity_id`, as an id or `{id}`. */
export class UpdateScheduleRequest {
  @Satisfies(nameProblems)
  name?: string;

  @Satisfies(activityProblems)
  activity?: unknown;

  @Satisfies(cronProblems)
  cron_expression?: string;

  @Satisfies(timezoneProblems)
  timezone?: string;

  @Satisfies(booleanProblems('is_active'))
  is_active?: boolean;

  @Satisfies(booleanProblems('skip_if_running'))
  skip_if_running?: boolean;

  @Satisfies(inputsProblems)
  inputs?: Record<string, unknown>;
}

/** POST /workflow-schedules: name, activity and cron_expression required (spec 2.15), the rest as on update. */
export class CreateScheduleRequest {
  @Satisfies(required('name', nameProblems))
  name!: string;

  @Satisfies(required('activity', activityProblems))
  activity!: unknown;

  @Satisfies(required('cron_expression', cronProblems))
  cron_expression!: string;

  @Satisfies(timezoneProblems)
  timezone?: string;

  @Satisfies(booleanProblems('is_active'))
  is_active?: boolean;

  @Satisfies(booleanProblems('skip_if_running'))
  skip_if_running?: boolean;

  @Satisfies(inputsProblems)
  inputs?: Record<string, unknown>;
}

function settingsOf(r: UpdateScheduleRequest | CreateScheduleRequest): ScheduleSettings {
  const out: ScheduleSettings = {};
  if (r.name !== undefined) out.name = r.name.trim();
  if (r.activity !== undefined) out.activityId = activityIdOf(r.activity) as number;
  if (r.cron_expression !== undefined) out.cronExpression = normalCron(r.cron_expression);
  if (r.timezone !== undefined) out.timezone = r.timezone;
  if (r.is_active !== undefined) out.isActive = r.is_active;
  if (r.skip_if_running !== undefined) out.skipIfRunning = r.skip_if_running;
  if (r.inputs !== undefined) out.inputs = r.inputs;
  return out;
}

/** The request's fields, wrapped or flat, with `activity_id` read as `activity`. */
function scheduleFields(body: unknown): Record<string, unknown> {
  const fields = requestFields(body);
  return { ...fields, activity: fields['activity'] ?? fields['activity_id'] };
}

/** A new schedule, read with parseBody (400 `Invalid schedule`). */
export function parseCreateSchedule(body: unknown): ScheduleSettings & { name: string; activityId: number; cronExpression: string } {
  const s = settingsOf(parseBody(CreateScheduleRequest, scheduleFields(body), { message: INVALID_SCHEDULE }));
  return { ...s, name: s.name as string, activityId: s.activityId as number, cronExpression: s.cronExpression as string };
}

/** Changes to a schedule, read with parseBody (400 `Invalid schedule`); at least one. */
export function parseUpdateSchedule(body: unknown): ScheduleSettings {
  const s = settingsOf(parseBody(UpdateScheduleRequest, scheduleFields(body), { message: INVALID_SCHEDULE }));
  if (Object.keys(s).length === 0) throw BadRequestError.withErrors(INVALID_SCHEDULE, ['give at least one of name, activity, cron_expression, timezone, is_active, skip_if_running, inputs']);
  return s;
}
