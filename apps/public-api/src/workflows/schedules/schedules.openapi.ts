import type { OpenApiRegistry, ParameterDoc } from '../../platform';

/** The routes' bases: the spec names no path, so the resource's name and a short alias. */
export const SCHEDULE_PATHS = ['/workflow-schedules', '/schedules'] as const;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const dataOf = (schema: Record<string, unknown>) => ({ type: 'object', required: ['data'], properties: { data: schema } });
const idParam: ParameterDoc = { name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } };

const writable = {
  name: { type: 'string' },
  activity: { type: 'integer' },
  cron_expression: { type: 'string', description: 'Standard 5 fields: minute hour day-of-month month day-of-week', examples: ['0 9 * * MON-FRI'] },
  timezone: { type: 'string', default: 'UTC', description: 'IANA name' },
  is_active: { type: 'boolean', default: true, description: 'false pauses' },
  skip_if_running: { type: 'boolean', default: true },
  inputs: { type: 'object', description: 'Inputs of every run' },
};

export function describeScheduleRoutes(openapi: OpenApiRegistry): void {
  openapi.addSchema('WorkflowSchedule', {
    type: 'object',
    properties: {
      id: { type: 'integer' },
      ...writable,
      activity: { type: 'object', properties: { id: { type: 'integer' } } },
      last_run_at: { type: ['string', 'null'] },
      next_run_at: { type: ['string', 'null'] },
      last_status: { type: 'string', enum: ['success', 'failed', 'running', 'queued', 'never_run'] },
      last_execution_id: { type: ['integer', 'null'] },
      last_error: { type: ['string', 'null'] },
      run_count: { type: 'integer' },
      failure_count: { type: 'integer' },
      createdAt: { type: 'string' },
      updatedAt: { type: 'string' },
    },
  });
  for (const base of SCHEDULE_PATHS) {
    const tags = ['schedules'];
    openapi.add('get', base, { summary: 'The caller’s workflow schedules', tags, responses: { 200: { description: 'Schedules', schema: dataOf({ type: 'array', items: ref('WorkflowSchedule') }) } } });
    openapi.add('post', base, {
      summary: 'Schedule an activity with a cron expression',
      tags,
      requestBody: dataOf({ type: 'object', required: ['name', 'activity', 'cron_expression'], properties: writable }),
      responses: { 201: { description: 'Created', schema: dataOf(ref('WorkflowSchedule')) } },
      errors: [400, 404],
    });
    openapi.add('get', `${base}/{id}`, {
      summary: 'One schedule',
      tags,
      parameters: [idParam],
      responses: { 200: { description: 'The schedule', schema: dataOf(ref('WorkflowSchedule')) } },
      errors: [404],
    });
    openapi.add('put', `${base}/{id}`, {
      summary: 'Change a schedule (is_active false pauses it, true resumes from the next tick)',
      tags,
      parameters: [idParam],
      requestBody: dataOf({ type: 'object', properties: writable }),
      responses: { 200: { description: 'Updated', schema: dataOf(ref('WorkflowSchedule')) } },
      errors: [400, 404],
    });
    openapi.add('delete', `${base}/{id}`, {
      summary: 'Delete a schedule',
      tags,
      parameters: [idParam],
      responses: { 200: { description: 'Deleted', schema: dataOf({ type: 'object', properties: { id: { type: 'integer' } } }) } },
      errors: [404],
    });
  }
}
