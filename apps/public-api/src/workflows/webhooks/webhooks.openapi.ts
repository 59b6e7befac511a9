import { ACCEPTED_MIME_TYPES } from '@docflow/text-extraction';
import type { OpenApiRegistry, ParameterDoc } from '../../platform';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const successOf = (data: Record<string, unknown>) => ({ type: 'object', properties: { success: { type: 'boolean', const: true }, data } });
const idParam: ParameterDoc = { name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } };

const settings = {
  name: { type: 'string', maxLength: 255, description: 'Default: the activity name plus " webhook"' },
  active: { type: 'boolean', default: true },
  event_type: { type: ['string', 'null'], description: 'Optional tag' },
  accept_files: { type: 'boolean', default: true },
  max_file_size_mb: { type: 'integer', minimum: 1, maximum: 50, default: 10 },
  allowed_mime_types: { type: 'array', items: { type: 'string', enum: [...ACCEPTED_MIME_TYPES] }, description: 'Default: all of them' },
  auto_enable_rag: { type: 'boolean', default: false },
  allowed_origins: { type: 'array', items: { type: 'string' }, description: 'Hostnames, origins or `*.domain` patterns; empty accepts any origin' },
};

export function describeWebhookRoutes(openapi: OpenApiRegistry): void {
  openapi.addSchema('Webhook', {
    type: 'object',
    properties: {
      id: { type: 'integer' },
      url: { type: 'string', description: '`{base_url}/webhooks/trigger/<id>`' },
      activity: { type: 'object', properties: { id: { type: 'integer' }, name: { type: ['string', 'null'] } } },
      ...settings,
      trigger_count: { type: 'integer' },
      last_triggered_at: { type: ['string', 'null'], format: 'date-time' },
      previous_secret_expires_at: { type: ['string', 'null'], format: 'date-time' },
      createdAt: { type: 'string', format: 'date-time' },
      updatedAt: { type: 'string', format: 'date-time' },
      secret_key: { type: 'string', description: '64 hex characters; only in the answers of create and regenerate-secret' },
    },
  });
  openapi.add('post', '/webhooks', {
    summary: 'Create a webhook that starts an activity (the secret is shown in this answer only)',
    tags: ['webhooks'],
    requestBody: { type: 'object', required: ['activity'], properties: { activity: { type: 'integer' }, ...settings }, description: 'Also accepted inside `data`' },
    responses: { 201: { description: 'Created', schema: successOf(ref('Webhook')) } },
    errors: [400, 404],
  });
  openapi.add('get', '/webhooks', {
    summary: 'The caller’s webhooks (no secrets)',
    tags: ['webhooks'],
    responses: { 200: { description: 'Webhooks', schema: successOf({ type: 'array', items: ref('Webhook') }) } },
  });
  openapi.add('get', '/webhooks/{id}', {
    summary: 'One of the caller’s webhooks (no secret)',
    tags: ['webhooks'],
    parameters: [idParam],
    responses: { 200: { description: 'The webhook', schema: successOf(ref('Webhook')) } },
    errors: [404],
  });
  openapi.add('put', '/webhooks/{id}', {
    summary: 'Change a webhook’s settings',
    tags: ['webhooks'],
    parameters: [idParam],
    requestBody: { type: 'object', properties: settings },
    responses: { 200: { description: 'Updated', schema: successOf(ref('Webhook')) } },
    errors: [400, 404],
  });
  openapi.add('delete', '/webhooks/{id}', {
    summary: 'Delete a webhook',
    tags: ['webhooks'],
    parameters: [idParam],
    responses: { 200: { description: 'Deleted', schema: successOf({ type: 'object', properties: { id: { type: 'integer' } } }) } },
    errors: [404],
  });
  openapi.add('post', '/webhooks/{id}/regenerate-secret', {
    summary: 'A new secret; the previous one stays valid for 24 hours',
    tags: ['webhooks'],
    parameters: [idParam],
    responses: {
      200: {
        description: 'The new secret',
        schema: successOf({ type: 'object', properties: { id: { type: 'integer' }, secret_key: { type: 'string' }, previous_secret_expires_at: { type: 'string', format: 'date-time' } } }),
      },
    },
    errors: [404],
  });
  openapi.add('post', '/webhooks/trigger/{id}', {
    summary: 'Start the webhook’s workflow: a JSON object becomes the inputs, or a multipart form with files (stored as the owner’s documents) and plain fields',
    tags: ['webhooks'],
    auth: 'none',
    parameters: [idParam, { name: 'X-Webhook-Secret', in: 'header', required: true, schema: { type: 'string' } }],
    requestBody: { type: 'object', additionalProperties: true },
    responses: {
      200: {
        description: 'Started',
        schema: {
          type: 'object',
          properties: {
            success: { type: 'boolean' },
            execution_id: { type: 'integer' },
            job_id: { type: 'string' },
            message: { type: 'string' },
            polling_token: { type: 'string', description: 'Bearer token for GET /workflow-executions/{execution_id}, valid 1 hour' },
            uploaded_documents: {
              type: 'array',
              items: {
                type: 'object',
                properties: {
                  field_name: { type: 'string' },
                  document_id: { type: 'integer' },
                  file_url: { type: 'string' },
                  file_name: { type: 'string' },
                  mime_type: { type: 'string' },
                  file_size: { type: 'integer' },
                },
              },
            },
            documents_count: { type: 'integer' },
          },
        },
      },
      429: { description: 'More than 100 triggers a minute for this webhook, or 10 running executions of its owner (Retry-After)', schema: ref('Error') },
    },
    errors: [400, 401, 403, 404, 503],
  });
}
