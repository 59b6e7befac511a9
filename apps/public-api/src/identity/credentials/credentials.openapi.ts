import type { OpenApiRegistry, ParameterDoc } from '../../platform';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const dataOf = (schema: Record<string, unknown>) => ({ type: 'object', required: ['data'], properties: { data: schema } });
const idParam: ParameterDoc = { name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } };

const writeFields = {
  name: { type: 'string', maxLength: 255 },
  provider: { type: 'string', maxLength: 100, examples: ['stripe', 'openai', 'smtp'] },
  description: { type: ['string', 'null'] },
  fields: {
    type: 'object',
    description: 'Field name to secret value; write-only: sealed with AES-256-GCM, never returned',
    additionalProperties: { type: 'string' },
    minProperties: 1,
    maxProperties: 50,
  },
};

export function describeCredentialRoutes(openapi: OpenApiRegistry): void {
  openapi.addSchema('Credential', {
    type: 'object',
    properties: {
      id: { type: 'integer' },
      name: { type: 'string' },
      provider: { type: 'string' },
      description: { type: ['string', 'null'] },
      field_names: { type: 'array', items: { type: 'string' } },
      createdAt: { type: 'string', format: 'date-time' },
      updatedAt: { type: 'string', format: 'date-time' },
    },
  });
  openapi.add('get', '/credentials', {
    summary: 'The caller’s credentials (metadata and field names only)',
    tags: ['credentials'],
    parameters: [
      { name: 'pagination[page]', in: 'query', schema: { type: 'integer', minimum: 1, default: 1 } },
      { name: 'pagination[pageSize]', in: 'query', schema: { type: 'integer', minimum: 1, default: 25 } },
      { name: 'sort', in: 'query', description: 'Default `createdAt:desc`', schema: { type: 'string' } },
      { name: 'filters', in: 'query', description: 'e.g. `filters[provider][$eq]=stripe`', schema: { type: 'object' } },
    ],
    responses: { 200: { description: 'Credentials', schema: { type: 'object', properties: { data: { type: 'array', items: ref('Credential') }, meta: { type: 'object' } } } } },
    errors: [400],
  });
  openapi.add('get', '/credentials/{id}', {
    summary: 'One of the caller’s credentials',
    tags: ['credentials'],
    parameters: [idParam],
    responses: { 200: { description: 'The credential', schema: dataOf(ref('Credential')) } },
    errors: [404],
  });
  openapi.add('post', '/credentials', {
    summary: 'Store a credential (also accepted without the data wrapper)',
    tags: ['credentials'],
    requestBody: dataOf({ type: 'object', required: ['name', 'provider', 'fields'], properties: writeFields }),
    responses: { 201: { description: 'Created', schema: dataOf(ref('Credential')) } },
    errors: [400],
  });
  openapi.add('put', '/credentials/{id}', {
    summary: 'Change a credential; `fields`, when given, replace the stored ones and are sealed again',
    tags: ['credentials'],
    parameters: [idParam],
    requestBody: dataOf({ type: 'object', properties: writeFields }),
    responses: { 200: { description: 'Updated', schema: dataOf(ref('Credential')) } },
    errors: [400, 404],
  });
  openapi.add('delete', '/credentials/{id}', {
    summary: 'Delete a credential (needs step-up: X-Step-Up-Verified: true after POST /auth/step-up/verify)',
    tags: ['credentials'],
    parameters: [idParam, { name: 'X-Step-Up-Verified', in: 'header', required: true, schema: { type: 'string', enum: ['true'] } }],
    responses: { 200: { description: 'Deleted', schema: dataOf({ type: 'object', properties: { id: { type: 'integer' } } }) } },
    errors: [403, 404],
  });
}
