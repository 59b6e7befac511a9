import type { OpenApiRegistry, ParameterDoc } from '../../platform';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const obj = (properties: Record<string, unknown>, required?: string[]) => ({ type: 'object', properties, ...(required ? { required } : {}) });
const dataOf = (schema: Record<string, unknown>) => obj({ data: schema }, ['data']);
const listOf = (name: string) => dataOf({ type: 'array', items: ref(name) });
const idParam: ParameterDoc = { name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } };
const SERVICE_AUTH = 'Header `X-Service-Key` (or a service JWT); no user token.';
const nullable = (type: string) => ({ type: [type, 'null'] });

const sourceBody = obj({
  name: { type: 'string' },
  source_type: { type: 'string', enum: ['cloud_drive', 'email'] },
  folder_id: { type: 'string', description: 'Local provider: a path relative to your drive (`inbox`); Google: the folder id' },
  folder_name: { type: 'string' },
  drive_item_id: { type: 'string', description: 'Same as folder_id (POST /event-sources)' },
  drive_item_type: { type: 'string', enum: ['folder'] },
  email_address: { type: 'string' },
  label_ids: { type: 'array', items: { type: 'string' }, default: ['INBOX'], description: 'IMAP mailboxes' },
  credential_id: { type: 'integer', description: 'E-mail: your credential with host, port, user, password (secure optional)' },
});
const subscriptionWritable = {
  name: { type: 'string' },
  event_types: { type: 'array', items: { type: 'string', enum: ['*', 'file_created', 'file_modified', 'email_received'] }, default: ['*'] },
  filter: { type: 'object', description: 'Matched against the event payload; `name` and `mime_type` take `*` wildcards' },
  input_mapping: { type: 'object', description: 'Extra inputs, templated with the event’s fields ({{file_name}})' },
  is_active: { type: 'boolean', default: true },
};

export function describeEventBusRoutes(openapi: OpenApiRegistry): void {
  openapi.addSchema(
    'EventSource',
    obj({
      id: { type: 'integer' },
      name: { type: 'string' },
      source_type: { type: 'string', enum: ['cloud_drive', 'webhook', 'email', 'slack'] },
      config: { type: 'object' },
      drive_item_id: nullable('string'),
      drive_item_type: nullable('string'),
      drive_item_name: nullable('string'),
      watch_channel_id: nullable('string'),
      watch_resource_id: nullable('string'),
      watch_expiry: nullable('string'),
      page_token: nullable('string'),
      is_active: { type: 'boolean' },
      last_event_at: nullable('string'),
      event_count: { type: 'integer' },
      error_message: nullable('string'),
      createdAt: { type: 'string' },
      updatedAt: { type: 'string' },
    }),
  );
  openapi.addSchema(
    'EventSubscription',
    obj({
      id: { type: 'integer' },
      ...subscriptionWritable,
      event_source: obj({ id: { type: 'integer' } }),
      activity: obj({ id: { type: 'integer' } }),
      trigger_count: { type: 'integer' },
      last_triggered_at: nullable('string'),
      createdAt: { type: 'string' },
      updatedAt: { type: 'string' },
    }),
  );
  openapi.addSchema(
    'EventLogEntry',
    obj({
      id: { type: 'integer' },
      event_id: { type: 'string' },
      source_type: { type: 'string' },
      event_type: { type: 'string' },
      event_source: obj({ id: { type: 'integer' }, drive_item_name: nullable('string') }),
      payload: { type: 'object' },
      subscriptions_matched: { type: 'integer' },
      workflows_triggered: { type: 'array', items: obj({ subscription_id: { type: 'integer' }, execution_id: { type: 'integer' } }) },
      status: { type: 'string', enum: ['received', 'processing', 'processed', 'ignored', 'failed'] },
      received_at: { type: 'string' },
      processed_at: nullable('string'),
      error_message: nullable('string'),
    }),
  );

  const tags = ['event-bus'];
  const grant = ['cloud-drive'];
  openapi.add('get', '/cloud/oauth/status', {
    summary: 'Whether the caller’s cloud drive is connected',
    tags: grant,
    responses: { 200: { description: 'Status', schema: obj({ connected: { type: 'boolean' }, needs_reconnect: { type: 'boolean' }, provider: { type: 'string' } }) } },
  });
  openapi.add('get', '/cloud/oauth/connect', {
    summary: 'Start connecting the cloud drive (authorization code with PKCE; send the browser to authorization_url)',
    tags: grant,
    parameters: [{ name: 'redirect_uri', in: 'query', schema: { type: 'string' }, description: 'Default {PUBLIC_BASE_URL}/api/cloud/oauth/callback' }],
    responses: { 200: { description: 'Connected already (local), or where to send the browser', schema: obj({ connected: { type: 'boolean' }, authorization_url: { type: 'string' } }) } },
    errors: [400],
  });
  openapi.add('get', '/cloud/oauth/callback', {
    summary: 'Finish connecting: the code and state the drive redirected with, sent with the same user’s token',
    tags: grant,
    parameters: [
      { name: 'code', in: 'query', required: true, schema: { type: 'string' } },
      { name: 'state', in: 'query', required: true, schema: { type: 'string' } },
    ],
    responses: { 200: { description: 'Connected', schema: obj({ connected: { type: 'boolean' } }) } },
    errors: [400, 503],
  });
  openapi.add('post', '/cloud/oauth/disconnect', {
    summary: 'Forget the drive grant (revoked at the provider); drive sources go inactive',
    tags: grant,
    responses: { 200: { description: 'Disconnected', schema: obj({ connected: { type: 'boolean' } }) } },
  });

  const created = { 201: { description: 'Created', schema: obj({ success: { type: 'boolean' }, data: ref('EventSource') }) } };
  openapi.add('post', '/event-bus/sources', { summary: 'Watch a drive folder (or, staging, a mailbox)', tags, requestBody: sourceBody, responses: created, errors: [400, 503] });
  openapi.add('get', '/event-bus/sources', { summary: 'The caller’s event sources', tags, responses: { 200: { description: 'Sources', schema: listOf('EventSource') } } });
  openapi.add('delete', '/event-bus/sources/{id}', {
    summary: 'Delete a source (its watch stops)',
    tags,
    parameters: [idParam],
    responses: { 200: { description: 'Deleted', schema: dataOf(obj({ id: { type: 'integer' } })) } },
    errors: [404],
  });
  for (const base of ['/event-bus/sources', '/event-sources']) {
    openapi.add('post', `${base}/{id}/activate`, {
      summary: 'Register a new push channel and make the source active',
      tags,
      parameters: [idParam],
      responses: { 200: { description: 'Active', schema: dataOf(obj({ is_active: { type: 'boolean' }, error_message: nullable('string'), watch_expiry: nullable('string') })) } },
      errors: [400, 404, 503],
    });
  }
  openapi.add('post', '/event-sources', {
    summary: 'Create a source and register the watch',
    tags,
    requestBody: sourceBody,
    responses: { 201: { description: 'Created', schema: dataOf(ref('EventSource')) } },
    errors: [400, 503],
  });
  openapi.add('get', '/event-sources', { summary: 'The caller’s event sources', tags, responses: { 200: { description: 'Sources', schema: listOf('EventSource') } } });
  openapi.add('get', '/event-sources/{id}', {
    summary: 'One source',
    tags,
    parameters: [idParam],
    responses: { 200: { description: 'The source', schema: dataOf(ref('EventSource')) } },
    errors: [404],
  });
  openapi.add('delete', '/event-sources/{id}', {
    summary: 'Delete a source',
    tags,
    parameters: [idParam],
    responses: { 200: { description: 'Deleted', schema: dataOf(obj({ id: { type: 'integer' } })) } },
    errors: [404],
  });

  openapi.add('post', '/event-subscriptions', {
    summary: 'Start an activity of yours on a source’s matching events',
    tags,
    requestBody: dataOf(obj({ ...subscriptionWritable, event_source: { type: 'integer' }, activity: { type: 'integer' } }, ['event_source', 'activity'])),
    responses: { 201: { description: 'Created', schema: dataOf(ref('EventSubscription')) } },
    errors: [400, 404],
  });
  openapi.add('get', '/event-subscriptions', {
    summary: 'The caller’s subscriptions',
    tags,
    parameters: [{ name: 'event_source', in: 'query', schema: { type: 'integer' } }],
    responses: { 200: { description: 'Subscriptions', schema: listOf('EventSubscription') } },
    errors: [400],
  });
  openapi.add('get', '/event-subscriptions/{id}', {
    summary: 'One subscription',
    tags,
    parameters: [idParam],
    responses: { 200: { description: 'The subscription', schema: dataOf(ref('EventSubscription')) } },
    errors: [404],
  });
  openapi.add('put', '/event-subscriptions/{id}', {
    summary: 'Change a subscription',
    tags,
    parameters: [idParam],
    requestBody: dataOf(obj(subscriptionWritable)),
    responses: { 200: { description: 'Updated', schema: dataOf(ref('EventSubscription')) } },
    errors: [400, 404],
  });
  openapi.add('delete', '/event-subscriptions/{id}', {
    summary: 'Delete a subscription',
    tags,
    parameters: [idParam],
    responses: { 200: { description: 'Deleted', schema: dataOf(obj({ id: { type: 'integer' } })) } },
    errors: [404],
  });

  openapi.add('get', '/event-bus/logs', {
    summary: 'The event log, newest first',
    tags,
    parameters: [
      { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 25 } },
      { name: 'offset', in: 'query', schema: { type: 'integer', minimum: 0, default: 0 } },
      { name: 'source_id', in: 'query', schema: { type: 'integer' } },
    ],
    responses: {
      200: {
        description: 'Entries',
        schema: obj({
          success: { type: 'boolean' },
          data: { type: 'array', items: ref('EventLogEntry') },
          pagination: obj({ total: { type: 'integer' }, limit: { type: 'integer' }, offset: { type: 'integer' } }),
        }),
      },
    },
    errors: [400, 404],
  });
  openapi.add('get', '/event-logs', { summary: 'Event history (spec 2.1 pagination)', tags, responses: { 200: { description: 'Entries', schema: listOf('EventLogEntry') } }, errors: [400] });
  openapi.add('get', '/event-bus/stats', {
    summary: 'Active sources and subscriptions, and the latest events',
    tags,
    responses: {
      200: {
        description: 'Stats',
        schema: obj({
          success: { type: 'boolean' },
          data: obj({
            active_sources: { type: 'integer' },
            active_subscriptions: { type: 'integer' },
            recent_events: { type: 'array', items: obj({ event_id: { type: 'string' }, event_type: { type: 'string' }, status: { type: 'string' } }) },
          }),
        }),
      },
    },
  });
  openapi.add('post', '/event-bus/drive-webhook', {
    summary: 'Push receiver of Google Drive channels (X-Goog-Channel-ID, X-Goog-Channel-Token)',
    tags,
    auth: 'none',
    description: 'Always 200 at once: an unknown channel or a wrong token is ignored without saying so.',
    responses: { 200: { description: 'Received' } },
  });
  openapi.add('post', '/internal/documents/import', {
    summary: 'Store a file as a document of a user (cloud_drive_fetch_task)',
    tags: ['internal'],
    auth: 'none',
    description: `${SERVICE_AUTH} The body is the file; header Idempotency-Key makes a replay answer the first document.`,
    parameters: [
      { name: 'user_id', in: 'query', required: true, schema: { type: 'integer' } },
      { name: 'file_name', in: 'query', required: true, schema: { type: 'string' } },
      { name: 'source', in: 'query', required: true, schema: { type: 'string', enum: ['cloud_drive_fetch', 'cloud_drive_event', 'email_event'] } },
      { name: 'source_ref', in: 'query', schema: { type: 'string' } },
    ],
    responses: {
      201: {
        description: 'Stored',
        schema: obj({ document_id: { type: 'integer' }, file_url: { type: 'string' }, mime_type: { type: 'string' }, file_size: { type: 'integer' }, filename: { type: 'string' } }),
      },
    },
    errors: [400, 401, 404, 413],
  });
  openapi.add('post', '/internal/cloud-drive/access-token', {
    summary: 'Lend a user’s drive access token (google provider)',
    tags: ['internal'],
    auth: 'none',
    description: SERVICE_AUTH,
    requestBody: obj({ user_id: { type: 'integer' }, force_refresh: { type: 'boolean' } }, ['user_id']),
    responses: { 200: { description: 'Token', schema: obj({ access_token: { type: 'string' }, expires_at: { type: 'string' } }) } },
    errors: [400, 401, 404, 409, 503],
  });
}
