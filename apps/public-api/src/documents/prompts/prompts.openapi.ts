import { PROMPT_LEVELS, PROMPT_TYPES, RTIO_OUTPUT_FORMATS, RTIO_ROLES } from '@docflow/rtio';
import type { OpenApiRegistry, ParameterDoc } from '../../platform';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const dataOf = (schema: Record<string, unknown>) => ({ type: 'object', required: ['data'], properties: { data: schema } });
const idParam: ParameterDoc = { name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } };

const LIST_PARAMETERS: ParameterDoc[] = [
  { name: 'pagination[page]', in: 'query', schema: { type: 'integer', minimum: 1, default: 1 } },
  { name: 'pagination[pageSize]', in: 'query', schema: { type: 'integer', minimum: 1, default: 25 } },
  { name: 'sort', in: 'query', description: 'e.g. `createdAt:desc`, `title:asc`', schema: { type: 'string' } },
  { name: 'populate', in: 'query', description: '`owner` or `*`', schema: { type: 'string' } },
  {
    name: 'filters',
    in: 'query',
    description: 'Strapi-style filters, e.g. `filters[level][$eq]=system` (`system`, `user`; `internal` finds nothing), `filters[type][$eq]=extraction`, `filters[title][$contains]=invoice`',
    schema: { type: 'object' },
  },
];

const LIST_META = {
  type: 'object',
  properties: {
    pagination: { type: 'object', properties: { page: { type: 'integer' }, pageSize: { type: 'integer' }, pageCount: { type: 'integer' }, total: { type: 'integer' } } },
  },
};

const rtioFields = {
  section: { type: ['string', 'null'], description: 'Category label', maxLength: 255 },
  description: { type: ['string', 'null'] },
  roles: {
    type: 'array',
    maxItems: 20,
    items: { type: 'object', required: ['role', 'prompt'], properties: { role: { type: 'string', enum: [...RTIO_ROLES] }, prompt: { type: 'string' } } },
  },
  tasks: { type: 'array', maxItems: 50, items: { type: 'string' } },
  instructions: { type: 'array', maxItems: 50, items: { type: 'string' } },
  outputFormat: { type: 'string', enum: [...RTIO_OUTPUT_FORMATS], default: 'json', description: '`output_format` is accepted too' },
  exampleOutput: { type: ['object', 'null'], description: 'Shape and example of the answer (`example_output` is accepted too)' },
  version: { type: 'string', default: '1.0.0' },
};

const promptFields = {
  title: { type: 'string', maxLength: 255 },
  type: { type: 'string', enum: [...PROMPT_TYPES] },
  level: { type: 'string', enum: [...PROMPT_LEVELS], description: 'Required on create; forced to `user` unless the caller is a super administrator' },
  ...rtioFields,
};

const ERROR_BODY = ref('Error');

export function describePromptRoutes(openapi: OpenApiRegistry): void {
  openapi
    .addSchema('Prompt', {
      type: 'object',
      required: ['id', 'title', 'type', 'level', 'roles', 'tasks', 'instructions', 'outputFormat', 'version', 'createdAt', 'updatedAt'],
      properties: {
        id: { type: 'integer' },
        ...promptFields,
        owner: {
          type: ['object', 'null'],
          description: 'Null for ownerless system prompts',
          properties: { id: { type: 'integer' }, username: { type: 'string' } },
        },
        published: { type: 'boolean', description: 'The current template passed publishing (POST /prompts/{id}/publish); an edit of the template clears it' },
        publishedAt: { type: ['string', 'null'], format: 'date-time' },
        publishedVersion: { type: ['string', 'null'] },
        createdAt: { type: 'string', format: 'date-time' },
        updatedAt: { type: 'string', format: 'date-time' },
      },
    })
    .addSchema('PromptWrite', { type: 'object', properties: promptFields })
    .addSchema('PromptLintFinding', {
      type: 'object',
      properties: {
        rule: { type: 'string', enum: ['unresolved_placeholder', 'malformed_placeholder', 'missing_output_schema', 'secret', 'personal_data'] },
        severity: { type: 'string', enum: ['error', 'warning'] },
        field: { type: 'string', examples: ['tasks[0]', 'roles[1].prompt', 'exampleOutput.customer.email'] },
        message: { type: 'string', description: 'Never repeats the secret or personal value' },
      },
    })
    .addSchema('PromptLintReport', {
      type: 'object',
      properties: { ok: { type: 'boolean' }, errors: { type: 'array', items: ref('PromptLintFinding') }, warnings: { type: 'array', items: ref('PromptLintFinding') } },
    });

  const publishBody = {
    type: 'object',
    properties: {
      placeholders: { type: 'array', items: { type: 'string', pattern: '^[A-Za-z0-9_.-]{1,64}$' }, description: '`{{key}}` placeholders the runs supply in `prompt_data`; any other is unresolved' },
      override_reason: { type: 'string', minLength: 10, maxLength: 1000, description: 'Super administrators only: publish despite the linter’s errors (audited `prompt.override_used`)' },
    },
  };
  openapi.add('post', '/prompts/{id}/lint', {
    summary: 'The publishing linter’s report for a prompt (changes nothing)',
    tags: ['prompts'],
    parameters: [idParam],
    requestBody: publishBody,
    responses: { 200: { description: 'Report', schema: dataOf(ref('PromptLintReport')) } },
    errors: [400, 404],
  });
  openapi.add('post', '/prompts/{id}/publish', {
    summary: 'Publish a prompt once it passes the linter (owner or super administrator)',
    description:
      'Checks: unresolved or malformed placeholders, a JSON output without exampleOutput, secrets, personal data (Data Shield detectors). Errors block publishing with 422 (`details.findings`; audited `prompt.lint_blocked`) unless a super administrator gives `override_reason` (audited `prompt.override_used`). Success is audited `prompt.publish`.',
    tags: ['prompts'],
    parameters: [idParam],
    requestBody: publishBody,
    responses: {
      200: {
        description: 'Published',
        schema: { type: 'object', properties: { data: ref('Prompt'), lint: ref('PromptLintReport'), overridden: { type: 'boolean' } } },
      },
    },
    errors: [400, 403, 404, 422],
  });

  openapi.add('get', '/prompts', {
    summary: 'List system prompts plus the caller’s own',
    tags: ['prompts'],
    parameters: LIST_PARAMETERS,
    responses: { 200: { description: 'A page of prompts', schema: { type: 'object', required: ['data', 'meta'], properties: { data: { type: 'array', items: ref('Prompt') }, meta: LIST_META } } } },
    errors: [400],
  });
  openapi.add('post', '/prompts', {
    summary: 'Create a prompt owned by the caller',
    description: 'Only a super administrator creates `system` prompts; for anyone else the level is forced to `user`.',
    tags: ['prompts'],
    requestBody: dataOf({ allOf: [ref('PromptWrite'), { required: ['title', 'type', 'level'] }] }),
    responses: { 201: { description: 'Created: the prompt’s fields, and the same under `data`', schema: { allOf: [ref('Prompt'), dataOf(ref('Prompt'))] } } },
    errors: [400],
  });
  openapi.add('get', '/prompts/{id}', {
    summary: 'One prompt (system prompts and the caller’s own)',
    tags: ['prompts'],
    parameters: [idParam],
    responses: { 200: { description: 'The prompt', schema: dataOf(ref('Prompt')) } },
    errors: [404],
  });
  openapi.add('put', '/prompts/{id}', {
    summary: 'Update a prompt (owner or super administrator; system prompts are read-only for others)',
    tags: ['prompts'],
    parameters: [idParam],
    requestBody: dataOf(ref('PromptWrite')),
    responses: { 200: { description: 'Updated: the prompt’s fields, and the same under `data`', schema: { allOf: [ref('Prompt'), dataOf(ref('Prompt'))] } } },
    errors: [400, 403, 404],
  });
  openapi.add('delete', '/prompts/{id}', {
    summary: 'Delete a prompt (owner or super administrator)',
    tags: ['prompts'],
    parameters: [idParam],
    responses: { 200: { description: 'Deleted', schema: dataOf({ type: 'object', properties: { id: { type: 'integer' } } }) } },
    errors: [403, 404],
  });
  openapi.add('post', '/prompts/generate-rtio', {
    summary: 'Draft an RTIO extraction prompt from a classification of one of the caller’s documents (not saved)',
    description:
      'Builds the prompt from the classification, then tries it on the document through the LLM service to fill the example output with the document’s values. Save the result with POST /prompts.',
    tags: ['prompts'],
    requestBody: {
      type: 'object',
      required: ['document_id', 'classification_result'],
      properties: {
        document_id: { type: 'integer', minimum: 1 },
        classification_result: {
          type: 'object',
          required: ['document_type'],
          properties: {
            document_type: { type: 'string' },
            category: { type: 'string' },
            key_features: { type: 'array', items: { type: 'string' } },
            confidence: { type: 'number', minimum: 0, maximum: 1 },
          },
        },
      },
    },
    responses: {
      200: {
        description: 'The draft',
        schema: {
          type: 'object',
          required: ['success', 'rtio_prompt', 'confidence', 'generated_from_classification', 'message'],
          properties: {
            success: { type: 'boolean' },
            rtio_prompt: {
              type: 'object',
              properties: { title: { type: 'string' }, ...rtioFields, type: { type: 'string', enum: ['extraction'] }, level: { type: 'string', enum: ['user'] } },
            },
            confidence: { type: 'number' },
            generated_from_classification: { type: 'object', properties: { document_type: { type: 'string' }, category: { type: 'string' } } },
            message: { type: 'string' },
            llm: {
              type: ['object', 'null'],
              description: 'The LLM call that filled the example output; null when the document has no text yet',
              properties: { provider: { type: 'string' }, model: { type: 'string' }, cost: { type: 'number' }, fields_found: { type: 'integer' }, fields_total: { type: 'integer' } },
            },
          },
        },
      },
      408: { description: 'Generation timed out (RTIO_TIMEOUT_SECONDS)', schema: ERROR_BODY },
      500: { description: 'Generation failed; details.error says why', schema: ERROR_BODY },
    },
    errors: [400, 403, 404, 429],
  });
  openapi.add('get', '/internal/prompts', {
    summary: 'The prompts a user sees (system plus own), for internal services',
    description: 'Service authentication: `X-Service-Key` or a service JWT.',
    tags: ['internal'],
    auth: 'none',
    parameters: [
      { name: 'user_id', in: 'query', required: true, schema: { type: 'integer', minimum: 1 } },
      { name: 'type', in: 'query', schema: { type: 'string', enum: [...PROMPT_TYPES] } },
      { name: 'X-Service-Key', in: 'header', schema: { type: 'string' } },
    ],
    responses: { 200: { description: 'Visible prompts, oldest first', schema: { type: 'object', properties: { data: { type: 'array', items: ref('Prompt') } } } } },
    errors: [400, 401],
  });
}
