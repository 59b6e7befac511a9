import { DEFAULT_WORKFLOW_LIMITS as LIMITS } from '../limits';
import type { TaskTypeDefinition } from './task-type';
import { HTTP_METHODS, objectSchema, positiveNumber, stringMap, templatable } from './schema-fragments';

const driveId = (description: string) => ({ type: 'string', minLength: 1, description });

export const cloudDriveFetchTask: TaskTypeDefinition = {
  id: 'cloud_drive_fetch_task',
  name: 'Fetch from cloud drive',
  category: 'Drive integration',
  description: 'Fetches a file from a connected cloud drive, by id or by name inside a folder, and stores it as a document.',
  icon: 'cloud-download',
  processor: 'drive_fetch',
  config_schema: objectSchema(
    {
      file_id: driveId('Direct mode: id of the file to fetch'),
      folder_id: driveId('Search mode: folder to search in'),
      file_name: driveId('Search mode: name of the file to find in the folder'),
    },
    [],
    {
      description: 'Either file_id (direct mode) or folder_id plus file_name (search mode); file_id wins when both are set.',
      anyOf: [{ required: ['file_id'] }, { required: ['folder_id', 'file_name'] }],
    },
  ),
  input_schema: objectSchema({}),
  output_schema: objectSchema({
    file_url: { type: 'string' },
    file_id: { type: 'string' },
    file_name: { type: 'string' },
    mime_type: { type: 'string' },
    size: { type: 'integer' },
    document_id: { type: 'integer' },
  }),
};

export const restApiTask: TaskTypeDefinition = {
  id: 'rest_api_task',
  name: 'REST API call',
  category: 'External Integrations',
  description: 'Calls an external HTTP(S) API and maps fields of the response into the node output.',
  icon: 'globe',
  processor: 'rest_api',
  config_schema: objectSchema(
    {
      url: { type: 'string', minLength: 1, description: 'Request URL; may hold {{templates}}' },
      method: { type: 'string', enum: [...HTTP_METHODS], default: 'GET' },
      headers: { ...stringMap, description: 'Request headers; values may hold {{templates}}' },
      body: { description: 'Request body, sent as JSON for POST, PUT and PATCH; strings inside may hold {{templates}}' },
      timeout: positiveNumber(`Timeout in seconds; at most ${LIMITS.maxRestTimeoutSeconds} unless the processor is configured otherwise (README, Limits)`, 30),
      output_mapping: {
        type: 'object',
        description: 'Output name to JSONPath evaluated against {data, _status_code, _raw_response}',
        additionalProperties: { type: 'string', pattern: '^\\$' },
      },
      credential_id: { type: 'integer', minimum: 1, description: 'Stored credential whose fields become template variables' },
    },
    ['url'],
  ),
  input_schema: objectSchema({}, [], { description: 'Any values referenced by {{templates}} in the config' }),
  output_schema: objectSchema(
    {
      data: { description: 'Response body (the inner data of a {success, data} envelope)' },
      status_code: { type: 'integer' },
      _status_code: { type: 'integer' },
      _raw_response: { description: 'The whole response body' },
    },
    [],
    { description: 'Also carries the top-level fields of data and each output_mapping name' },
  ),
};

const addressList = (description: string, minItems: number) =>
  templatable(
    { type: 'array', items: { type: 'string', minLength: 1 }, minItems },
    {
      description,
      ...(minItems === 0 ? { default: [] } : {}),
    },
  );

export const emailSendTask: TaskTypeDefinition = {
  id: 'email_send_task',
  name: 'Send email',
  category: 'Communication',
  description: 'Sends an email through the configured mail relay.',
  icon: 'mail',
  processor: 'email_send',
  config_schema: objectSchema(
    {
      from: { type: 'string', minLength: 1, description: 'Sender address; defaults to the relay mailbox' },
      to: addressList(
        `Recipient addresses (or one {{template}} that resolves to an array); to, cc and bcc together name at most ${LIMITS.maxRecipientsPerEmail} unless the processor is configured otherwise`,
        1,
      ),
      cc: addressList('Carbon-copy addresses', 0),
      bcc: addressList('Blind carbon-copy addresses', 0),
      subject: { type: 'string', minLength: 1 },
      body: { type: 'string' },
      html: templatable({ type: 'boolean' }, { default: true, description: 'Send the body as HTML' }),
    },
    ['to', 'subject', 'body'],
  ),
  input_schema: objectSchema({}, [], { description: 'Any values referenced by {{templates}} in the config' }),
  output_schema: objectSchema({
    sent: { type: 'boolean' },
    recipients: { type: 'array', items: { type: 'string' } },
    timestamp: { type: 'string', format: 'date-time' },
  }),
};
