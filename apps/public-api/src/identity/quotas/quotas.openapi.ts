import type { OpenApiRegistry } from '../../platform';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const nullableNumber = { type: ['number', 'null'] };

export function describeQuotaRoutes(openapi: OpenApiRegistry): void {
  openapi.addSchema('QuotaLine', {
    type: 'object',
    required: ['used', 'limit', 'unit', 'ratio', 'warning', 'exceeded'],
    properties: {
      used: { type: 'number' },
      limit: { ...nullableNumber, description: 'Null: no limit' },
      unit: { type: 'string', enum: ['bytes', 'executions', 'usd'] },
      ratio: nullableNumber,
      warning: { type: 'boolean', description: 'At or past 80 % of the limit (spec 8); one mail per quota and month says so' },
      exceeded: { type: 'boolean', description: 'At the limit: uploads (400) or new executions (429) are refused' },
    },
  });
  const usageProperties = {
    period: { type: 'object', description: 'The UTC month executions and LLM cost count in', properties: { start: { type: 'string', format: 'date' }, end: { type: 'string', format: 'date' } } },
    quotas: { type: 'object', properties: { storage: ref('QuotaLine'), executions: ref('QuotaLine'), llm_cost: ref('QuotaLine') } },
    warnings: { type: 'array', items: { type: 'string', enum: ['storage', 'executions', 'llm_cost'] } },
  };
  openapi.addSchema('QuotaUsage', { type: 'object', required: ['period', 'quotas', 'warnings'], properties: usageProperties });
  const limits = { storage_bytes: { type: ['integer', 'null'] }, executions_monthly: { type: ['integer', 'null'] }, llm_cost_monthly: nullableNumber };
  openapi.addSchema('AdminQuotas', {
    type: 'object',
    properties: {
      user_id: { type: 'integer' },
      overrides: { type: 'object', description: 'Null where the configured default applies', properties: limits },
      defaults: { type: 'object', description: 'STORAGE_QUOTA_MB, EXECUTION_QUOTA_MONTHLY, LLM_COST_QUOTA_MONTHLY_CENTS (null: no limit)', properties: limits },
      ...usageProperties,
    },
  });
  openapi.add('get', '/users/me/usage', {
    summary: 'The caller’s usage against their storage, monthly execution and monthly LLM cost quotas',
    tags: ['users'],
    responses: { 200: { description: 'Usage', schema: { type: 'object', properties: { data: ref('QuotaUsage') } } } },
  });
  const id = [{ name: 'id', in: 'path' as const, required: true, schema: { type: 'integer' } }];
  openapi.add('get', '/admin/users/{id}/quotas', {
    summary: 'A user’s quotas and usage (super administrator)',
    tags: ['users'],
    parameters: id,
    responses: { 200: { description: 'Quotas', schema: { type: 'object', properties: { data: ref('AdminQuotas') } } } },
    errors: [403, 404],
  });
  openapi.add('put', '/admin/users/{id}/quotas', {
    summary: 'Sets a user’s quotas (super administrator); audited as quota.update',
    description: 'Each field given replaces the override (null: back to the default); fields left out keep theirs.',
    tags: ['users'],
    parameters: id,
    requestBody: { type: 'object', properties: { data: { type: 'object', properties: limits } } },
    responses: { 200: { description: 'Quotas after the change', schema: { type: 'object', properties: { data: ref('AdminQuotas') } } } },
    errors: [400, 403, 404],
  });
}
