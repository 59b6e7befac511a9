import type { OpenApiRegistry, ParameterDoc } from '../../platform';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const LIST_META = {
  type: 'object',
  properties: {
    pagination: { type: 'object', properties: { page: { type: 'integer' }, pageSize: { type: 'integer' }, pageCount: { type: 'integer' }, total: { type: 'integer' } } },
  },
};

const common: ParameterDoc[] = [
  { name: 'pagination[page]', in: 'query', schema: { type: 'integer', minimum: 1, default: 1 } },
  { name: 'pagination[pageSize]', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 25 } },
  { name: 'sort', in: 'query', description: 'Default `created_at:desc`', schema: { type: 'string' } },
  { name: 'correlation_id', in: 'query', description: 'Same as `filters[correlation_id][$eq]`', schema: { type: 'string' } },
  { name: 'tenant', in: 'query', description: 'Same as `filters[tenant][$eq]`', schema: { type: 'string' } },
  { name: 'from', in: 'query', description: 'Rows at or after this time (ISO 8601); same as `filters[created_at][$gte]`', schema: { type: 'string', format: 'date-time' } },
  { name: 'to', in: 'query', description: 'Rows at or before this time; same as `filters[created_at][$lte]`', schema: { type: 'string', format: 'date-time' } },
  { name: 'filters', in: 'query', description: 'Strapi-style filters on id, actor_user, tenant, correlation_id, created_at (and action on the admin view)', schema: { type: 'object' } },
];

export function describeAuditRoutes(openapi: OpenApiRegistry): void {
  openapi.addSchema('AuditRecord', {
    type: 'object',
    description: 'One audited action; immutable; personal data redacted before storage',
    properties: {
      id: { type: 'integer' },
      action: { type: 'string', examples: ['auth.login', 'auth.logout', 'auth.step_up.verified', 'quota.exceeded', 'workflow.execution.completed'] },
      actor_user: { type: ['integer', 'null'], description: 'Id of the user who acted' },
      tenant: { type: ['string', 'null'] },
      correlation_id: { type: ['string', 'null'], description: 'X-Correlation-Id of the request that acted' },
      details: { type: 'object', description: 'Ids, counts and reasons; never raw personal data' },
      created_at: { type: 'string', format: 'date-time' },
      createdAt: { type: 'string', format: 'date-time' },
      retain_until: { type: 'string', format: 'date-time', description: 'Deleted after this (AUDIT_LOG_RETENTION_DAYS, default 400)' },
    },
  });
  const list = { type: 'object', properties: { data: { type: 'array', items: ref('AuditRecord') }, meta: LIST_META } };
  openapi.add('get', '/admin/audit-log', {
    summary: 'The audit log, newest first (super administrator)',
    tags: ['audit'],
    parameters: [
      { name: 'action', in: 'query', description: 'Same as `filters[action][$eq]`', schema: { type: 'string' } },
      { name: 'actor_user', in: 'query', description: 'User id; same as `filters[actor_user][$eq]`', schema: { type: 'integer' } },
      ...common,
    ],
    responses: { 200: { description: 'Audit rows', schema: list } },
    errors: [400, 403],
  });
  openapi.add('get', '/audit-log/me', {
    summary: 'The caller’s own audit rows, newest first (no action filter)',
    tags: ['audit'],
    parameters: common,
    responses: { 200: { description: 'Audit rows', schema: list } },
    errors: [400],
  });
}
