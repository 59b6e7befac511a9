import type { OpenApiRegistry, ParameterDoc } from '../../platform';
import { ACTIVITY_LEVELS, ACTIVITY_STATUSES } from './activity-vocabulary';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const dataOf = (schema: Record<string, unknown>) => ({ type: 'object', required: ['data'], properties: { data: schema } });
const idParam: ParameterDoc = { name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } };

const LIST_PARAMETERS: ParameterDoc[] = [
  { name: 'pagination[page]', in: 'query', schema: { type: 'integer', minimum: 1, default: 1 } },
  { name: 'pagination[pageSize]', in: 'query', schema: { type: 'integer', minimum: 1, default: 25 } },
  { name: 'sort', in: 'query', description: 'e.g. `createdAt:desc`, `name:asc`', schema: { type: 'string' } },
  { name: 'populate', in: 'query', description: '`owner` or `*`', schema: { type: 'string' } },
  {
    name: 'filters',
    in: 'query',
    description: 'Strapi-style filters, e.g. `filters[name][$contains]=invoice`, `filters[status][$eq]=draft`, `filters[level][$eq]=system`',
    schema: { type: 'object' },
  },
];

const LIST_META = {
  type: 'object',
  properties: {
    pagination: {
      type: 'object',
      properties: { page: { type: 'integer' }, pageSize: { type: 'integer' }, pageCount: { type: 'integer' }, total: { type: 'integer' } },
    },
  },
};

const activityFields = {
  name: { type: 'string', maxLength: 255 },
  description: { type: ['string', 'null'] },
  workflow_type: { type: 'string', examples: ['document_processing', 'sequential'], default: 'sequential' },
  status: { type: 'string', enum: [...ACTIVITY_STATUSES], default: 'draft' },
  level: { type: 'string', enum: [...ACTIVITY_LEVELS], description: 'Forced to `user` unless the caller is a super administrator' },
  workflow_definition: { type: 'object', description: 'Nodes, edges and input_schema (spec 2.6)' },
  execution_deadline_seconds: { type: ['integer', 'null'], minimum: 1, description: 'NULL: no deadline' },
  data_shield_policy: { type: ['object', 'null'] },
};

export function describeActivityRoutes(openapi: OpenApiRegistry): void {
  openapi
    .addSchema('Activity', {
      type: 'object',
      required: ['id', 'name', 'workflow_type', 'status', 'level', 'workflow_definition', 'createdAt', 'updatedAt'],
      properties: {
        id: { type: 'integer' },
        ...activityFields,
        owner: {
          type: ['object', 'null'],
          description: 'Present on single reads and with populate=owner; null for ownerless system items',
          properties: { id: { type: 'integer' }, username: { type: 'string' }, email: { type: 'string' } },
        },
        createdAt: { type: 'string', format: 'date-time' },
        updatedAt: { type: 'string', format: 'date-time' },
      },
    })
    .addSchema('ActivityWrite', { type: 'object', properties: activityFields });

  openapi.add('get', '/activities', {
    summary: 'List system-level activities plus the caller’s own',
    tags: ['activities'],
    parameters: LIST_PARAMETERS,
    responses: {
      200: {
        description: 'A page of activities',
        schema: { type: 'object', required: ['data', 'meta'], properties: { data: { type: 'array', items: ref('Activity') }, meta: LIST_META } },
      },
    },
    errors: [400],
  });
  openapi.add('post', '/activities', {
    summary: 'Create an activity (workflow)',
    tags: ['activities'],
    requestBody: dataOf({ allOf: [ref('ActivityWrite'), { required: ['name', 'workflow_definition'] }] }),
    responses: { 201: { description: 'Created', schema: dataOf(ref('Activity')) } },
    errors: [400],
  });
  openapi.add('get', '/activities/{id}', {
    summary: 'One activity',
    tags: ['activities'],
    parameters: [idParam],
    responses: { 200: { description: 'The activity', schema: dataOf(ref('Activity')) } },
    errors: [404],
  });
  openapi.add('put', '/activities/{id}', {
    summary: 'Update an activity (owner or super administrator; system items are read-only for others)',
    tags: ['activities'],
    parameters: [idParam],
    requestBody: dataOf(ref('ActivityWrite')),
    responses: { 200: { description: 'Updated', schema: dataOf(ref('Activity')) } },
    errors: [400, 403, 404],
  });
  openapi.add('delete', '/activities/{id}', {
    summary: 'Delete an activity and its executions',
    tags: ['activities'],
    parameters: [idParam],
    responses: { 200: { description: 'Deleted', schema: dataOf({ type: 'object', properties: { id: { type: 'integer' } } }) } },
    errors: [403, 404],
  });
  openapi.add('post', '/activities/{id}/instantiate', {
    summary: 'Copy a visible activity into a user-level draft owned by the caller',
    tags: ['activities'],
    parameters: [idParam],
    requestBody: {
      type: 'object',
      properties: { name: { type: 'string', description: 'Default: the source name plus " (Copy)"' }, description: { type: ['string', 'null'] } },
    },
    responses: {
      200: {
        description: 'The copy',
        schema: dataOf({ type: 'object', required: ['workflow_id', 'workflow'], properties: { workflow_id: { type: 'integer' }, workflow: ref('Activity') } }),
      },
    },
    errors: [400, 404],
  });
}
