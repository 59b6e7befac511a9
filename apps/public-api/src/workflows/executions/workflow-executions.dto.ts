import { isPlainObject, parseBody, Satisfies } from '@docflow/service-kit';
import { requestFields } from '../../platform';

/** An execution to record: the activity, and optionally a definition to run instead of the activity's and inputs checked now. */
export interface NewExecution {
  activityId: number;
  definition?: Record<string, unknown>;
  inputs?: Record<string, unknown>;
}

/** Ids are PostgreSQL integers: a larger number names no activity, and would fail the query as a 500. */
const MAX_ID = 2147483647;

function activityIdOf(value: unknown): number | undefined {
  const raw = isPlainObject(value) ? value['id'] : value;
  return typeof raw === 'number' && Number.isSafeInteger(raw) && raw > 0 && raw <= MAX_ID ? raw : undefined;
}

const optionalObject =
  (key: string) =>
  (value: unknown): string[] =>
    value === undefined || value === null || isPlainObject(value) ? [] : [`${key} must be an object`];

/** POST /workflow-executions (spec 4.8): `activity` (an id or `{id}`), `workflow_definition`, `inputs`. */
export class CreateExecutionRequest {
  @Satisfies((value) => (activityIdOf(value) === undefined ? [`activity is required and must be an integer id from 1 to ${MAX_ID}`] : []))
  activity!: unknown;

  @Satisfies(optionalObject('workflow_definition'))
  workflow_definition?: Record<string, unknown> | null;

  @Satisfies(optionalObject('inputs'))
  inputs?: Record<string, unknown> | null;
}

/** `{data: {activity, workflow_definition?, inputs?}}` or flat, read with parseBody (400 `Invalid execution request`). */
export function parseCreateExecution(body: unknown): NewExecution {
  const request = parseBody(CreateExecutionRequest, requestFields(body), { message: 'Invalid execution request' });
  return {
    activityId: activityIdOf(request.activity) as number,
    ...(request.workflow_definition ? { definition: request.workflow_definition } : {}),
    ...(request.inputs ? { inputs: request.inputs } : {}),
  };
}

/** POST /workflow-executions/{id}/resume (spec 4.8): the pause's correlation token and the payload for the waiting node. */
export class ResumeRequest {
  @Satisfies((value) => (typeof value === 'string' && value !== '' ? [] : ['correlation_token is required']))
  correlation_token!: string;

  @Satisfies((value) => (isPlainObject(value) ? [] : ['payload is required and must be an object']))
  payload!: Record<string, unknown>;
}

/** `{correlation_token, payload}` (wrapped or flat), read with parseBody (400 `Invalid resume request`). */
export function parseResume(body: unknown): { token: string; payload: Record<string, unknown> } {
  const request = parseBody(ResumeRequest, requestFields(body), { message: 'Invalid resume request' });
  return { token: request.correlation_token, payload: request.payload };
}
