import type { OpenApiRegistry, ParameterDoc, ResponseDoc } from '../../platform';
import { EXECUTION_STATUSES } from './execution-status';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const dataOf = (schema: Record<string, unknown>) => ({ type: 'object', required: ['data'], properties: { data: schema } });
const idParam: ParameterDoc = { name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } };
const tooMany = (description: string): ResponseDoc => ({ description, schema: ref('Error') });
const dateTime = { type: ['string', 'null'], format: 'date-time' };
const nullableObject = { type: ['object', 'null'] };
const nullableString = { type: ['string', 'null'] };
const status = { type: 'string', enum: [...EXECUTION_STATUSES] };

/** The answer of a start (execute, retry). */
function startedSchema(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type: 'object',
    properties: {
      success: { type: 'boolean' },
      message: { type: 'string' },
      execution_id: { type: 'integer' },
      job_id: { type: 'string' },
      ...extra,
      data: { type: 'object', properties: { id: { type: 'integer' }, status: { const: 'running' }, started_at: dateTime } },
    },
  };
}

export function describeExecutionRoutes(openapi: OpenApiRegistry): void {
  openapi
    .addSchema('WorkflowExecution', {
      type: 'object',
      properties: {
        id: { type: 'integer' },
        status,
        activity: { type: 'integer' },
        inputs: { type: 'object' },
        results: nullableObject,
        outputs: { ...nullableObject, description: 'Map of node id to node output' },
        started_at: dateTime,
        completed_at: dateTime,
        completedAt: dateTime,
        error: nullableString,
        error_type: nullableString,
        failed_node: nullableString,
        total_cost: { type: 'number' },
        retry_of: { type: ['integer', 'null'], description: 'The failed execution this one retries (POST /retry)' },
        createdAt: { type: 'string', format: 'date-time' },
        updatedAt: { type: 'string', format: 'date-time' },
      },
    })
    .addSchema('WorkflowExecutionStatus', {
      type: 'object',
      description: 'Every key is present; those that do not apply to the status are null',
      properties: {
        id: { type: 'integer' },
        status,
        task_states: { type: 'object', description: 'Map of node id to {status, result, error, ...}' },
        outputs: nullableObject,
        awaiting_node: nullableString,
        correlation_token: { ...nullableString, description: 'While awaiting input, for the owner: send it back with POST /resume (single use)' },
        awaiting_input_schema: nullableObject,
        awaiting_since: dateTime,
        started_at: dateTime,
        completed_at: dateTime,
        error: nullableString,
        error_type: nullableString,
        failed_node: nullableString,
      },
    })
    .addSchema('ResultMessage', {
      type: 'object',
      required: ['job_id', 'status'],
      description: 'A processor result (spec 4.16), as relayed on public_api_results_queue',
      properties: {
        job_id: { type: 'string' },
        status: { type: 'string', enum: ['processing', 'completed', 'failed', 'awaiting_user_input'] },
        execution_id: { type: 'integer' },
        sequence: { type: 'integer', description: 'Monotonic per job; a message not above the last applied one is a no-op' },
        outputs: { type: 'object' },
        task_states: { type: 'object' },
        error: { type: 'string' },
        error_type: { type: 'string' },
        failed_node: { type: 'string' },
        awaiting_node: { type: 'string' },
        awaiting_input_schema: { type: 'object' },
        correlation_token: { type: 'string' },
        awaiting_since: { type: 'string', format: 'date-time' },
      },
    });

  openapi.add('post', '/workflow-executions', {
    summary: 'Create a queued execution of an activity (nothing is started)',
    description: 'The snapshot is the given workflow_definition or the activity’s, normalised; it must have an input_schema. Inputs given here are validated against it.',
    tags: ['workflow-executions'],
    requestBody: dataOf({
      type: 'object',
      required: ['activity'],
      properties: { activity: { type: 'integer' }, workflow_definition: { type: 'object' }, inputs: { type: 'object' } },
    }),
    responses: {
      201: {
        description: 'Created',
        schema: dataOf({
          type: 'object',
          properties: { id: { type: 'integer' }, status: { const: 'queued' }, activity: { type: 'integer' }, started_at: dateTime },
        }),
      },
    },
    errors: [400, 404],
  });
  openapi.add('get', '/workflow-executions/{id}', {
    summary: 'One execution (owner, super administrator, or the polling token of a webhook trigger)',
    tags: ['workflow-executions'],
    parameters: [idParam],
    responses: { 200: { description: 'The execution', schema: dataOf(ref('WorkflowExecution')) }, 429: tooMany('More than 60 polls a minute') },
    errors: [404],
  });
  openapi.add('get', '/workflow-executions/{id}/status', {
    summary: 'Status, task states, outputs, and what a paused execution awaits',
    description:
      'With `wait=<seconds>` (0 to 30, fractions allowed) a long poll: it answers as soon as the execution is completed, failed, cancelled or awaiting input, or with the current state when the wait runs out. Changes committed by any API process wake it (PostgreSQL LISTEN/NOTIFY).',
    tags: ['workflow-executions'],
    parameters: [idParam, { name: 'wait', in: 'query', required: false, schema: { type: 'number', minimum: 0, maximum: 30 } }],
    responses: { 200: { description: 'The status', schema: dataOf(ref('WorkflowExecutionStatus')) } },
    errors: [400, 404],
  });
  openapi.add('get', '/workflow-executions/{id}/events', {
    summary: 'Server-sent events: the status and each task state as they change',
    description:
      'A `text/event-stream`. Frames: `event: task` with `{execution_id, node_id, state}` for each task state that changed, then `event: status` with the status object (as GET .../status returns in `data`). The first frames give the current state; the stream ends after a terminal status, or after 15 minutes (reconnect). A comment line is sent every 15 s while nothing changes. Same readers as the status route.',
    tags: ['workflow-executions'],
    parameters: [idParam],
    responses: { 200: { description: 'The event stream', contentType: 'text/event-stream', schema: { type: 'string' } } },
    errors: [404],
  });
  openapi.add('post', '/workflow-executions/{id}/execute', {
    summary: 'Start a queued execution: job wf_<id> goes to the router',
    description:
      'Body `{inputs}` or `{document_url, mime_type}` (which become inputs). At most MAX_RUNNING_EXECUTIONS_PER_USER (default 10) executions of one user run at once (429 beyond); webhook triggers have their own cap, WEBHOOK_MAX_RUNNING_EXECUTIONS_PER_USER (spec 8: 10).',
    tags: ['workflow-executions'],
    parameters: [idParam],
    requestBody: {
      type: 'object',
      properties: { inputs: { type: 'object' }, document_url: { type: 'string' }, mime_type: { type: 'string' } },
    },
    responses: {
      200: { description: 'Started', schema: startedSchema() },
      429: tooMany('Too many running executions for this user'),
    },
    errors: [400, 404, 409, 503],
  });
  openapi.add('post', '/workflow-executions/{id}/resume', {
    summary: 'Resume an execution awaiting user input (the correlation token works once)',
    tags: ['workflow-executions'],
    parameters: [idParam],
    requestBody: {
      type: 'object',
      required: ['correlation_token', 'payload'],
      properties: { correlation_token: { type: 'string' }, payload: { type: 'object', description: 'Must satisfy awaiting_input_schema' } },
    },
    responses: {
      200: {
        description: 'Resumed',
        schema: dataOf({ type: 'object', properties: { id: { type: 'integer' }, status: { const: 'running' }, job_id: { type: 'string' } } }),
      },
      429: tooMany('Too many running executions for this user'),
    },
    errors: [400, 404, 409, 503],
  });
  openapi.add('post', '/workflow-executions/{id}/cancel', {
    summary: 'Cancel a queued, running or paused execution (owner only)',
    description: 'The record becomes `cancelled` at once; a processor running it stops at its next step boundary and any late result is ignored. 409 for a finished execution.',
    tags: ['workflow-executions'],
    parameters: [idParam],
    responses: {
      200: {
        description: 'Cancelled',
        schema: dataOf({
          type: 'object',
          properties: { id: { type: 'integer' }, status: { const: 'cancelled' }, previous_status: status, completed_at: { type: 'string', format: 'date-time' } },
        }),
      },
    },
    errors: [404, 409],
  });
  openapi.add('post', '/workflow-executions/{id}/retry', {
    summary: 'Run a failed execution again from its failed node, as a new execution',
    description:
      'Same definition snapshot and inputs; nodes that completed keep their outputs and are not run again. The new execution has `retry_of`. A refused start marks the new record failed (error_type not_started).',
    tags: ['workflow-executions'],
    parameters: [idParam],
    responses: {
      201: { description: 'Started', schema: startedSchema({ retry_of: { type: 'integer' } }) },
      429: tooMany('Too many running executions for this user'),
    },
    errors: [404, 409, 503],
  });
  openapi.add('get', '/workflow-executions/{id}/timeline', {
    summary: 'Steps of an execution in the order they started',
    tags: ['workflow-executions'],
    parameters: [idParam],
    responses: {
      200: {
        description: 'The timeline',
        schema: dataOf({
          type: 'object',
          properties: {
            execution_id: { type: 'integer' },
            status,
            total_duration_seconds: { type: ['number', 'null'] },
            total_cost: { type: 'number' },
            timeline: {
              type: 'array',
              items: {
                type: 'object',
                properties: {
                  node_id: { type: 'string' },
                  step_name: { type: 'string' },
                  step_type: nullableString,
                  status: { type: 'string' },
                  started_at: dateTime,
                  completed_at: dateTime,
                  duration_seconds: { type: ['number', 'null'] },
                  cost: { type: ['number', 'null'] },
                  result_summary: nullableString,
                  error: nullableString,
                  error_type: nullableString,
                },
              },
            },
            inputs: { type: 'object' },
            outputs: nullableObject,
          },
        }),
      },
    },
    errors: [404],
  });
  openapi.add('put', '/workflow-executions/internal/{id}/results', {
    summary: 'Internal: apply a processor result to an execution (same path as the results queue)',
    description: 'Authenticated with `X-Service-Key` or a service JWT (`Authorization: Bearer`), not a user token.',
    tags: ['internal'],
    auth: 'none',
    parameters: [idParam, { name: 'X-Service-Key', in: 'header', required: false, schema: { type: 'string' } }],
    requestBody: ref('ResultMessage'),
    responses: {
      200: {
        description: 'Applied, or ignored as stale or duplicate',
        schema: dataOf({ type: 'object', properties: { id: { type: 'integer' }, applied: { type: 'boolean' }, status } }),
      },
    },
    errors: [400, 401, 404],
  });
  openapi.add('post', '/workflow-executions/internal/{id}/node-credential', {
    summary: 'Internal: the fields of the credential a node of a running execution names (workflow processor, spec 2.7 rule 3)',
    description:
      'Authenticated with `X-Service-Key` or a service JWT (`Authorization: Bearer`), not a user token. Answered only for the ' +
      "execution's current job while it runs and only for the credential its stored definition names for that node; " +
      'anything else is 404. The response carries `Cache-Control: no-store`.',
    tags: ['internal'],
    auth: 'none',
    parameters: [idParam, { name: 'X-Service-Key', in: 'header', required: false, schema: { type: 'string' } }],
    requestBody: {
      type: 'object',
      required: ['job_id', 'node_id'],
      properties: { job_id: { type: 'string', maxLength: 200 }, node_id: { type: 'string', maxLength: 200 } },
    },
    responses: {
      200: {
        description: 'The credential id and its decrypted fields',
        schema: dataOf({
          type: 'object',
          properties: { credential_id: { type: 'integer' }, fields: { type: 'object', additionalProperties: { type: 'string' } } },
        }),
      },
    },
    errors: [400, 401, 404],
  });
}
