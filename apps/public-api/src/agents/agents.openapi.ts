import { CHAT_STREAM_DESCRIPTION, describePreflight, type OpenApiRegistry, type ParameterDoc } from '../platform';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const dataOf = (schema: Record<string, unknown>) => ({ type: 'object', required: ['data'], properties: { data: schema } });
const success = { type: 'object', properties: { success: { type: 'boolean' } } };
const idParam: ParameterDoc = { name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } };
const slugParam: ParameterDoc = { name: 'slug', in: 'path', required: true, schema: { type: 'string' } };
const sessionParam: ParameterDoc = { name: 'sessionId', in: 'path', required: true, schema: { type: 'string' } };

const agentFields = {
  name: { type: 'string' },
  slug: { type: 'string', description: 'Default: made from the name' },
  goal: { type: ['string', 'null'] },
  description: { type: ['string', 'null'] },
  available_tools: {
    type: 'array',
    items: { type: 'string' },
    description: 'Tools the agent may call: search_documents, list_documents, list_workflows, and the Composer’s composer_list_* tools; other names are kept but not offered to the model',
  },
  model: { type: 'string', enum: ['provider_a', 'provider_b', 'provider_c'], default: 'provider_a' },
  max_iterations: { type: 'integer', minimum: 1, maximum: 50, default: 10 },
  temperature: { type: 'number', minimum: 0, maximum: 2, default: 0.3 },
  prompt_title: { type: ['string', 'null'] },
  conversational: { type: 'boolean', default: false },
  branding: { type: 'object' },
  welcome_message: { type: ['string', 'null'] },
  mcp_servers: {
    type: 'array',
    maxItems: 20,
    description:
      'MCP servers whose tools the agent may call, offered as <server>.<tool>: url over Streamable HTTP (or SSE), allowed_tools filters them, public_tools are those key holders get, credential_id one of the owner’s credentials (token sent as a bearer token)',
    items: {
      type: 'object',
      required: ['name', 'url'],
      properties: {
        name: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,32}$' },
        url: { type: 'string' },
        transport: { type: 'string', enum: ['streamable_http', 'sse'] },
        credential_id: { type: 'integer' },
        allowed_tools: { type: 'array', items: { type: 'string' } },
        public_tools: { type: 'array', items: { type: 'string' } },
      },
    },
  },
  public_collection_id: { type: ['integer', 'null'], description: 'One of the owner’s collections: the only documents key holders may list and search' },
  allowed_origins: { type: 'array', items: { type: 'string' }, description: 'Sites whose pages may call the public chat (hostnames, origins or *.domain); empty accepts any origin' },
  active: { type: 'boolean', default: true },
};

const message = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    role: { type: 'string', enum: ['user', 'assistant', 'system'] },
    content: { type: 'string' },
    metadata: { type: 'object' },
    attachments: { type: ['array', 'null'] },
    created_at: { type: 'string' },
  },
};
const messageBody = {
  type: 'object',
  required: ['content'],
  properties: { role: { type: 'string', enum: ['user', 'assistant', 'system'], default: 'user' }, content: { type: 'string' }, metadata: { type: 'object' }, attachments: { type: 'array' } },
};
const escalationBody = {
  type: 'object',
  required: ['escalation_status'],
  properties: {
    escalation_status: {
      type: 'string',
      enum: ['none', 'requested', 'assigned', 'resolved', 'dismissed'],
      description:
        'Moves allowed: none → requested; requested → assigned or dismissed; assigned → assigned (reassign), resolved or dismissed; resolved or dismissed → requested. Any other move is 409 naming the allowed ones.',
    },
    escalation_reason: { type: ['string', 'null'] },
    assigned_agent: { type: ['string', 'null'], description: 'Required to assign; an e-mail address is notified by mail (otherwise the owner is)' },
  },
};

const recordKind = { type: 'string', enum: ['workflow', 'agent', 'squad', 'prompt'] };
const consolePath = { type: 'string', description: 'Where the console shows the record: /activities/{id}/edit, /agents?agent={id}, /agents?squad={id} or /prompts?prompt={id}' };

/** Spec 2.10: the data of each `:::composer_block <type>` marker (the JSON line between the type and the closing `:::`). */
export const COMPOSER_BLOCK_SCHEMAS: Record<string, Record<string, unknown>> = {
  ...Object.fromEntries(
    (['workflow', 'agent', 'squad', 'prompt'] as const).map((kind) => [
      `ComposerBlock_${kind}_preview`,
      {
        type: 'object',
        required: ['tool', 'confirmation_id', 'expires_at', 'data'],
        description: `A composer_create_${kind} call previewed: nothing is created yet. Confirming sends a message that names confirmation_id; the creation then uses exactly \`data\`.`,
        properties: {
          tool: { const: `composer_create_${kind}` },
          confirmation_id: { type: 'string', pattern: '^cfm_', description: 'Server-issued, bound to the tool, these exact arguments and the user; used once; expires after 15 minutes' },
          expires_at: { type: 'string', format: 'date-time' },
          data: { type: 'object', description: 'The exact arguments the creation will use' },
        },
      },
    ]),
  ),
  ComposerBlock_navigation: {
    type: 'object',
    required: ['kind', 'id', 'name', 'path'],
    description: 'An existing record the reply points to (one the Composer’s list tools returned this turn and the answer names)',
    properties: { kind: recordKind, id: { type: 'integer' }, name: { type: 'string' }, path: consolePath },
  },
  ComposerBlock_creation_result: {
    type: 'object',
    required: ['created'],
    description: 'What this turn created',
    properties: {
      created: {
        type: 'array',
        items: { type: 'object', required: ['type', 'id', 'name', 'path'], properties: { type: recordKind, id: { type: 'integer' }, name: { type: 'string' }, path: consolePath } },
      },
    },
  },
};

export function describeAgentRoutes(openapi: OpenApiRegistry): void {
  for (const [name, schema] of Object.entries(COMPOSER_BLOCK_SCHEMAS)) openapi.addSchema(name, schema);
  openapi.addSchema('Agent', {
    type: 'object',
    properties: {
      id: { type: 'integer' },
      ...agentFields,
      owner: { type: ['object', 'null'] },
      createdAt: { type: 'string' },
      updatedAt: { type: 'string' },
      api_key: { type: 'string', description: 'Only in the answer of create (and regenerate-key): shown once' },
    },
  });
  openapi.addSchema('AgentConversation', {
    type: 'object',
    properties: {
      id: { type: 'integer' },
      session_id: { type: 'string' },
      title: { type: ['string', 'null'] },
      message_count: { type: 'integer' },
      active: { type: 'boolean' },
      agent_config: { type: 'object' },
      agent_id: { type: ['integer', 'null'] },
      escalation_status: { type: 'string', enum: ['none', 'requested', 'assigned', 'resolved', 'dismissed'] },
      escalation_updated_at: { type: ['string', 'null'] },
      escalation_reason: { type: ['string', 'null'] },
      assigned_agent: { type: ['string', 'null'] },
      createdAt: { type: 'string' },
      updatedAt: { type: 'string' },
    },
  });
  openapi.add('get', '/agents/{slug}/public-config', {
    summary: 'An agent’s public face (no auth)',
    tags: ['agents'],
    auth: 'none',
    parameters: [slugParam],
    responses: {
      200: {
        description: 'Public configuration',
        schema: { type: 'object', properties: { type: { const: 'agent' }, name: {}, slug: {}, description: {}, welcome_message: {}, branding: {}, conversational: {} } },
      },
    },
    errors: [404],
  });
  describePreflight(openapi, '/agents/{slug}/public-config', 'agents', { methods: ['GET'], headers: ['Accept', 'X-Correlation-Id'] });
  describePreflight(openapi, '/agents/{slug}/public-chat', 'agents', { methods: ['POST'], headers: ['Content-Type', 'Accept', 'X-Agent-Key', 'Authorization', 'X-Correlation-Id'] });
  openapi.add('post', '/agents/{slug}/public-chat', {
    description: CHAT_STREAM_DESCRIPTION,
    summary:
      'Chat with an agent: X-Agent-Key, or the owner’s bearer token (any user’s for the Composer and other system agents). Key holders get only the document tools, over the agent’s public collection; requests are limited per key and per session (429), and each request’s model and tool calls are capped. The answer may end with `:::composer_block <type>` markers written by the server (never the model): a line with the marker and type, one line of JSON data, a line `:::`; the data of each type is the schema ComposerBlock_<type>.',
    tags: ['agents'],
    parameters: [
      slugParam,
      { name: 'X-Agent-Key', in: 'header', schema: { type: 'string' } },
      { name: 'session_id', in: 'query', schema: { type: 'string' } },
      { name: 'stream', in: 'query', description: '`true`: answer as server-sent events (as `Accept: text/event-stream`)', schema: { type: 'string', enum: ['true', '1'] } },
    ],
    requestBody: {
      type: 'object',
      required: ['query'],
      properties: { query: { type: 'string' }, session_id: { type: 'string' }, file_urls: { type: 'array', items: { type: 'object', properties: { url: {}, mime_type: {}, name: {} } } } },
    },
    responses: {
      200: {
        description: 'The answer',
        schema: {
          type: 'object',
          properties: { answer: { type: 'string' }, trace: { type: 'array', items: { type: 'object' } }, tools_used: { type: 'array', items: { type: 'string' } }, session_id: { type: 'string' } },
        },
      },
    },
    errors: [400, 403, 404, 503],
  });
  openapi.add('get', '/agents', {
    summary: 'The caller’s agents',
    tags: ['agents'],
    parameters: [
      { name: 'pagination[page]', in: 'query', schema: { type: 'integer' } },
      { name: 'pagination[pageSize]', in: 'query', schema: { type: 'integer' } },
    ],
    responses: { 200: { description: 'Agents', schema: { type: 'object', properties: { data: { type: 'array', items: ref('Agent') }, meta: { type: 'object' } } } } },
    errors: [400],
  });
  openapi.add('post', '/agents', {
    summary: 'Create an agent',
    tags: ['agents'],
    requestBody: dataOf({ type: 'object', required: ['name'], properties: agentFields }),
    responses: { 201: { description: 'Created', schema: dataOf(ref('Agent')) } },
    errors: [400, 409],
  });
  openapi.add('get', '/agents/{id}', {
    summary: 'One agent (the caller’s, or a system agent)',
    tags: ['agents'],
    parameters: [idParam],
    responses: { 200: { description: 'The agent', schema: dataOf(ref('Agent')) } },
    errors: [404],
  });
  openapi.add('put', '/agents/{id}', {
    summary: 'Change an agent (system agents are read-only)',
    tags: ['agents'],
    parameters: [idParam],
    requestBody: dataOf({ type: 'object', properties: agentFields }),
    responses: { 200: { description: 'Updated', schema: dataOf(ref('Agent')) } },
    errors: [400, 403, 404, 409],
  });
  openapi.add('delete', '/agents/{id}', { summary: 'Delete an agent', tags: ['agents'], parameters: [idParam], responses: { 200: { description: 'Deleted', schema: success } }, errors: [403, 404] });
  openapi.add('post', '/agents/{id}/regenerate-key', {
    summary: 'A new agent key (needs step-up)',
    tags: ['agents'],
    parameters: [idParam, { name: 'X-Step-Up-Verified', in: 'header', required: true, schema: { type: 'string', enum: ['true'] } }],
    responses: { 200: { description: 'The new key', schema: dataOf({ type: 'object', properties: { id: { type: 'integer' }, api_key: { type: 'string' } } }) } },
    errors: [403, 404],
  });
  openapi.add('get', '/agent-conversations', {
    summary: 'The caller’s conversation sessions (filters[agent_id][$eq])',
    tags: ['agents'],
    parameters: [{ name: 'filters', in: 'query', schema: { type: 'object' } }],
    responses: { 200: { description: 'Sessions', schema: { type: 'object', properties: { data: { type: 'array', items: ref('AgentConversation') }, meta: { type: 'object' } } } } },
    errors: [400],
  });
  openapi.add('post', '/agent-conversations', {
    summary: 'Start a conversation session',
    tags: ['agents'],
    requestBody: dataOf({ type: 'object', properties: { title: { type: 'string' }, agent_config: { type: 'object' }, agent_id: { type: ['integer', 'null'] } } }),
    responses: { 201: { description: 'Created', schema: dataOf(ref('AgentConversation')) } },
    errors: [400, 404],
  });
  openapi.add('get', '/agent-conversations/{sessionId}/messages', {
    summary: 'The last messages of a session, oldest first',
    tags: ['agents'],
    parameters: [sessionParam, { name: 'limit', in: 'query', schema: { type: 'integer', default: 50, maximum: 500 } }],
    responses: { 200: { description: 'Messages', schema: dataOf({ type: 'object', properties: { session_id: { type: 'string' }, messages: { type: 'array', items: message } } }) } },
    errors: [400, 404],
  });
  openapi.add('post', '/agent-conversations/{sessionId}/messages', {
    summary: 'Add a message',
    tags: ['agents'],
    parameters: [sessionParam],
    requestBody: messageBody,
    responses: { 201: { description: 'Added', schema: dataOf(message) } },
    errors: [400, 404],
  });
  openapi.add('post', '/internal/agent-conversations/{sessionId}/messages', {
    summary: 'Add a message (internal services, X-Service-Key)',
    tags: ['internal'],
    auth: 'none',
    parameters: [sessionParam, { name: 'X-Service-Key', in: 'header', required: true, schema: { type: 'string' } }],
    requestBody: messageBody,
    responses: { 201: { description: 'Added', schema: success } },
    errors: [400, 401, 404],
  });
  openapi.add('put', '/agent-conversations/{sessionId}/escalate', {
    summary: 'Escalate a session',
    tags: ['agents'],
    parameters: [sessionParam],
    requestBody: escalationBody,
    responses: { 200: { description: 'Escalated', schema: success } },
    errors: [400, 404, 409],
  });
  openapi.add('get', '/agent-conversations/escalated', {
    summary: 'The caller’s conversations waiting for or held by a person (escalation requested or assigned), the longest-waiting first',
    tags: ['agents'],
    responses: { 200: { description: 'Sessions', schema: dataOf({ type: 'array', items: ref('AgentConversation') }) } },
    errors: [401],
  });
  openapi.add('post', '/agent-conversations/{sessionId}/human-reply', {
    summary:
      'Reply as a person to an escalated conversation (requested or assigned; a reply to a request assigns it to the caller): an assistant message with metadata.human true, which the visitor gets on their next public-chat turn',
    tags: ['agents'],
    parameters: [sessionParam],
    requestBody: { type: 'object', required: ['content'], properties: { content: { type: 'string', maxLength: 100000 } } },
    responses: { 201: { description: 'The message', schema: dataOf(message) } },
    errors: [400, 401, 404, 409],
  });
  openapi.add('put', '/internal/agent-conversations/{sessionId}/escalate', {
    summary: 'Escalate a session (internal services, X-Service-Key)',
    tags: ['internal'],
    auth: 'none',
    parameters: [sessionParam, { name: 'X-Service-Key', in: 'header', required: true, schema: { type: 'string' } }],
    requestBody: escalationBody,
    responses: { 200: { description: 'Escalated', schema: success } },
    errors: [400, 401, 404, 409],
  });
  openapi.add('delete', '/agent-conversations/{sessionId}', {
    summary: 'Delete a session and its messages',
    tags: ['agents'],
    parameters: [sessionParam],
    responses: { 200: { description: 'Deleted', schema: success } },
    errors: [404],
  });
}
