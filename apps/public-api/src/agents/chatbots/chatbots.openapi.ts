import { CHAT_STREAM_DESCRIPTION, describePreflight, type OpenApiRegistry, type ParameterDoc } from '../../platform';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const dataOf = (schema: Record<string, unknown>) => ({ type: 'object', required: ['data'], properties: { data: schema } });
const idParam: ParameterDoc = { name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } };
const slugParam: ParameterDoc = { name: 'slug', in: 'path', required: true, schema: { type: 'string' } };

const settings = {
  name: { type: 'string', maxLength: 255 },
  slug: { type: 'string', pattern: '^[a-z0-9]+(?:-[a-z0-9]+)*$', description: 'Default: made from the name' },
  active: { type: 'boolean', default: true },
  welcome_message: { type: ['string', 'null'] },
  branding: { type: 'object' },
  allowed_origins: { type: 'array', items: { type: 'string' }, description: 'Empty accepts any origin' },
  rate_limit: { type: 'integer', minimum: 1, default: 60, description: 'Questions a minute' },
};

export function describeChatbotRoutes(openapi: OpenApiRegistry): void {
  openapi.addSchema('Chatbot', {
    type: 'object',
    properties: {
      id: { type: 'integer' },
      ...settings,
      query_count: { type: 'integer' },
      owner: { type: 'object', properties: { id: { type: 'integer' } } },
      createdAt: { type: 'string', format: 'date-time' },
      updatedAt: { type: 'string', format: 'date-time' },
      api_key: { type: 'string', description: 'Only in the answers of create and regenerate-key (kept hashed)' },
    },
  });
  openapi.add('get', '/chatbots/{slug}/config', {
    summary: 'What a chat widget shows: name, welcome message, branding',
    tags: ['chatbots'],
    auth: 'none',
    parameters: [slugParam],
    responses: { 200: { description: 'Public configuration', schema: { type: 'object', properties: { name: {}, slug: {}, welcome_message: {}, branding: {} } } } },
    errors: [404],
  });
  describePreflight(openapi, '/chatbots/{slug}/config', 'chatbots', { methods: ['GET'], headers: ['Accept', 'X-Correlation-Id'] });
  describePreflight(openapi, '/chatbots/{slug}/chat', 'chatbots', { methods: ['POST'], headers: ['Content-Type', 'Accept', 'X-Chatbot-Key', 'X-Correlation-Id'] });
  openapi.add('post', '/chatbots/{slug}/chat', {
    summary: 'Ask the chatbot: an answer from the owner’s RAG-enabled documents, with sources',
    description: CHAT_STREAM_DESCRIPTION,
    tags: ['chatbots'],
    auth: 'none',
    parameters: [
      slugParam,
      { name: 'X-Chatbot-Key', in: 'header', required: true, schema: { type: 'string' } },
      { name: 'session_id', in: 'query', schema: { type: 'string' } },
      { name: 'stream', in: 'query', description: '`true`: answer as server-sent events (as `Accept: text/event-stream`)', schema: { type: 'string', enum: ['true', '1'] } },
    ],
    requestBody: { type: 'object', required: ['query'], properties: { query: { type: 'string' }, session_id: { type: 'string' } } },
    responses: {
      200: {
        description: 'The answer',
        schema: {
          type: 'object',
          properties: {
            answer: { type: 'string' },
            sources: { type: 'array', items: { type: 'object', properties: { title: {}, content: {}, file_url: {}, signed_url: {}, document_id: {}, page: {}, score: {} } } },
            session_id: { type: 'string', description: 'The one sent, or a new one' },
          },
        },
      },
      429: { description: 'More questions a minute than the chatbot’s rate_limit (Retry-After)', schema: ref('Error') },
    },
    errors: [400, 401, 403, 404, 503],
  });
  openapi.add('get', '/chatbots', { summary: 'The caller’s chatbots', tags: ['chatbots'], responses: { 200: { description: 'Chatbots', schema: dataOf({ type: 'array', items: ref('Chatbot') }) } } });
  openapi.add('post', '/chatbots', {
    summary: 'Create a chatbot (its key is shown in this answer only)',
    tags: ['chatbots'],
    requestBody: dataOf({ type: 'object', required: ['name'], properties: settings }),
    responses: { 201: { description: 'Created', schema: dataOf(ref('Chatbot')) } },
    errors: [400, 409],
  });
  openapi.add('get', '/chatbots/{id}', {
    summary: 'One of the caller’s chatbots',
    tags: ['chatbots'],
    parameters: [idParam],
    responses: { 200: { description: 'The chatbot', schema: dataOf(ref('Chatbot')) } },
    errors: [404],
  });
  openapi.add('put', '/chatbots/{id}', {
    summary: 'Change a chatbot',
    tags: ['chatbots'],
    parameters: [idParam],
    requestBody: dataOf({ type: 'object', properties: settings }),
    responses: { 200: { description: 'Updated', schema: dataOf(ref('Chatbot')) } },
    errors: [400, 404, 409],
  });
  openapi.add('delete', '/chatbots/{id}', {
    summary: 'Delete a chatbot',
    tags: ['chatbots'],
    parameters: [idParam],
    responses: { 200: { description: 'Deleted', schema: { type: 'object', properties: { success: { type: 'boolean' } } } } },
    errors: [404],
  });
  openapi.add('post', '/chatbots/{id}/regenerate-key', {
    summary: 'A new key (needs step-up); the old one stops working at once',
    tags: ['chatbots'],
    parameters: [idParam, { name: 'X-Step-Up-Verified', in: 'header', required: true, schema: { type: 'string', enum: ['true'] } }],
    responses: { 200: { description: 'The new key', schema: dataOf({ type: 'object', properties: { id: { type: 'integer' }, api_key: { type: 'string' } } }) } },
    errors: [403, 404],
  });
}
