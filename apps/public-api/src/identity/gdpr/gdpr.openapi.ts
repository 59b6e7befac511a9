import type { OpenApiRegistry } from '../../platform';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const dataOf = (schema: Record<string, unknown>) => ({ type: 'object', required: ['data'], properties: { data: schema } });
const dateTime = { type: 'string', format: 'date-time' };
const nullableDateTime = { type: ['string', 'null'], format: 'date-time' };

export function describeGdprRoutes(openapi: OpenApiRegistry): void {
  openapi.addSchema('DataExport', {
    type: 'object',
    required: ['id', 'status', 'requested_at'],
    properties: {
      id: { type: 'integer' },
      status: { type: 'string', enum: ['pending', 'ready', 'failed'] },
      requested_at: dateTime,
      ready_at: nullableDateTime,
      expires_at: { ...nullableDateTime, description: 'When the archive is deleted (7 days after it is ready, spec 8)' },
      size_bytes: { type: ['integer', 'null'] },
      download_url: { type: ['string', 'null'], description: 'Signed link to the zip archive (no bearer token needed), signed afresh on each read while the export is ready' },
      download_url_expires_at: nullableDateTime,
    },
  });
  openapi.addSchema('AccountDeletion', {
    type: 'object',
    required: ['id', 'status', 'requested_at', 'scheduled_for'],
    properties: {
      id: { type: 'integer' },
      status: { type: 'string', enum: ['pending', 'running', 'cancelled'] },
      requested_at: dateTime,
      scheduled_for: { ...dateTime, description: 'End of the grace (7 days by default, spec 8): the account and everything it owns are deleted then' },
    },
  });
  openapi.add('post', '/users/me/export', {
    summary: 'Request an export of everything held about the caller (built in the background; poll GET /users/me/export)',
    tags: ['users'],
    responses: { 202: { description: 'The pending export (an export already pending is answered again)', schema: dataOf(ref('DataExport')) } },
  });
  openapi.add('get', '/users/me/export', {
    summary: 'The caller’s latest data export and, once ready, its signed download link',
    tags: ['users'],
    responses: { 200: { description: 'The export', schema: dataOf(ref('DataExport')) } },
    errors: [404],
  });
  openapi.add('get', '/users/me/export/{id}/download', {
    summary: 'Download an export archive (zip with manifest.json) through its signed link',
    tags: ['users'],
    auth: 'none',
    parameters: [
      { name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } },
      { name: 'expires', in: 'query', required: true, schema: { type: 'integer' } },
      { name: 'signature', in: 'query', required: true, schema: { type: 'string' } },
    ],
    responses: { 200: { description: 'The archive', contentType: 'application/zip', schema: { type: 'string', format: 'binary' } } },
    errors: [403, 404],
  });
  openapi.add('post', '/users/me/deletion', {
    summary: 'Request deletion of the caller’s account and everything it owns, after a grace (needs step-up: X-Step-Up-Verified: true)',
    tags: ['users'],
    parameters: [{ name: 'X-Step-Up-Verified', in: 'header', required: true, schema: { type: 'string', enum: ['true'] } }],
    responses: { 202: { description: 'The pending deletion (one already pending keeps its date)', schema: dataOf(ref('AccountDeletion')) } },
    errors: [403],
  });
  openapi.add('get', '/users/me/deletion', {
    summary: 'The caller’s pending account deletion',
    tags: ['users'],
    responses: { 200: { description: 'The deletion', schema: dataOf(ref('AccountDeletion')) } },
    errors: [404],
  });
  openapi.add('delete', '/users/me/deletion', {
    summary: 'Cancel the caller’s account deletion during its grace',
    tags: ['users'],
    responses: { 200: { description: 'Cancelled', schema: dataOf(ref('AccountDeletion')) } },
    errors: [404],
  });
}
