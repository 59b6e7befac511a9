import type { OpenApiRegistry, ParameterDoc } from '../platform';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const dataOf = (schema: Record<string, unknown>) => ({ type: 'object', required: ['data'], properties: { data: schema } });
const idParam: ParameterDoc = { name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } };
const packParam: ParameterDoc = { name: 'name', in: 'path', required: true, schema: { type: 'string', enum: ['insurance', 'hr', 'financial'] } };
const entityType = { type: 'string', pattern: '^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$', maxLength: 40, examples: ['POLICY_NUMBER'] };
const score = { type: ['number', 'null'], minimum: 0, maximum: 1 };

const KINDS = [
  {
    path: 'patterns',
    schema: 'DataShieldPattern',
    what: 'L1 pattern (a regex in RE2 syntax, run in linear time; refused with 400 when RE2 cannot compile it)',
    fields: { name: { type: 'string' }, entity_type: entityType, pattern: { type: 'string', maxLength: 1000 }, score, enabled: { type: 'boolean' } },
    required: ['name', 'entity_type', 'pattern'],
  },
  {
    path: 'word-lists',
    schema: 'DataShieldWordList',
    what: 'L2 word list (case-insensitive, on word boundaries, up to 100,000 entries)',
    fields: { name: { type: 'string' }, entity_type: entityType, words: { type: 'array', items: { type: 'string', maxLength: 200 }, maxItems: 100000 }, score, enabled: { type: 'boolean' } },
    required: ['name', 'entity_type', 'words'],
  },
  {
    path: 'recognizers',
    schema: 'DataShieldRecognizer',
    what: 'L3 recognizer (an RE2 regex, optional context words that raise its score, and the score a match needs)',
    fields: {
      name: { type: 'string' },
      entity_type: entityType,
      pattern: { type: 'string', maxLength: 1000 },
      context_words: { type: 'array', items: { type: 'string' }, maxItems: 50 },
      score,
      score_threshold: score,
      enabled: { type: 'boolean' },
    },
    required: ['name', 'entity_type', 'pattern'],
  },
] as const;

export function describeDataShieldRoutes(openapi: OpenApiRegistry): void {
  const tags = ['data-shield'];
  openapi.add('post', '/data-shield/preview', {
    summary: 'What Data Shield does with a text: the tokenised text, the entities found (type, span, score, layer), counts by type and stage latencies',
    tags,
    requestBody: {
      type: 'object',
      required: ['text'],
      properties: { text: { type: 'string', maxLength: 100000 }, entity_types: { type: 'array', items: entityType, description: 'Only these types; DATE_TIME only when named' } },
    },
    responses: {
      200: {
        description: 'The preview (also recorded as a data_shield.tokenise audit row, without values)',
        schema: {
          type: 'object',
          properties: {
            tokenised_text: { type: 'string' },
            entities: {
              type: 'array',
              items: {
                type: 'object',
                properties: { type: { type: 'string' }, start: { type: 'integer' }, end: { type: 'integer' }, score: { type: 'number' }, layer: { type: 'string', enum: ['L1', 'L2', 'L3'] } },
              },
            },
            entity_counts: { type: 'object', additionalProperties: { type: 'integer' } },
            layers: { type: 'array', items: { type: 'string' } },
            latency_ms: { type: 'object', additionalProperties: { type: 'number' } },
          },
        },
      },
    },
    errors: [400, 503],
  });
  openapi.add('get', '/data-shield/recent-events', {
    summary: 'The caller’s recent Data Shield audit rows (counts, layers, latencies, model; never values), newest first',
    tags,
    parameters: [
      { name: 'pagination[page]', in: 'query', schema: { type: 'integer', minimum: 1, default: 1 } },
      { name: 'pagination[pageSize]', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 25 } },
    ],
    responses: { 200: { description: 'Audit rows', schema: { type: 'object', properties: { data: { type: 'array', items: { type: 'object' } }, meta: { type: 'object' } } } } },
    errors: [400],
  });
  for (const k of KINDS) {
    openapi.addSchema(k.schema, {
      type: 'object',
      properties: { id: { type: 'integer' }, kind: { type: 'string' }, ...k.fields, createdAt: { type: 'string', format: 'date-time' }, updatedAt: { type: 'string', format: 'date-time' } },
    });
    const body = dataOf({ type: 'object', required: [...k.required], properties: k.fields });
    openapi.add('get', `/data-shield/${k.path}`, { summary: `The caller’s ${k.what}s`, tags, responses: { 200: { description: 'List', schema: dataOf({ type: 'array', items: ref(k.schema) }) } } });
    openapi.add('post', `/data-shield/${k.path}`, {
      summary: `Add an ${k.what} (also accepted without the data wrapper)`,
      tags,
      requestBody: body,
      responses: { 201: { description: 'Created', schema: dataOf(ref(k.schema)) } },
      errors: [400, 409],
    });
    openapi.add('get', `/data-shield/${k.path}/{id}`, {
      summary: `One ${k.what}`,
      tags,
      parameters: [idParam],
      responses: { 200: { description: 'Found', schema: dataOf(ref(k.schema)) } },
      errors: [404],
    });
    openapi.add('put', `/data-shield/${k.path}/{id}`, {
      summary: `Change an ${k.what}; given fields replace the stored ones`,
      tags,
      parameters: [idParam],
      requestBody: dataOf({ type: 'object', properties: k.fields }),
      responses: { 200: { description: 'Updated', schema: dataOf(ref(k.schema)) } },
      errors: [400, 404, 409],
    });
    openapi.add('delete', `/data-shield/${k.path}/{id}`, {
      summary: `Delete an ${k.what}`,
      tags,
      parameters: [idParam],
      responses: { 200: { description: 'Deleted', schema: dataOf({ type: 'object', properties: { id: { type: 'integer' } } }) } },
      errors: [404],
    });
  }
  const packResult = dataOf({ type: 'object', properties: { name: { type: 'string' }, installed: { type: 'boolean' } } });
  openapi.add('get', '/data-shield/packs', {
    summary: 'Detector packs (insurance, HR, financial) and whether the caller installed each',
    tags,
    responses: { 200: { description: 'Packs', schema: dataOf({ type: 'array', items: { type: 'object' } }) } },
  });
  openapi.add('post', '/data-shield/packs/{name}/install', {
    summary: 'Install a detector pack for the caller',
    tags,
    parameters: [packParam],
    responses: { 200: { description: 'Installed', schema: packResult } },
    errors: [404],
  });
  openapi.add('post', '/data-shield/packs/{name}/uninstall', {
    summary: 'Uninstall a detector pack',
    tags,
    parameters: [packParam],
    responses: { 200: { description: 'Uninstalled', schema: packResult } },
    errors: [404],
  });
  openapi.add('delete', '/data-shield/packs/{name}', {
    summary: 'Uninstall a detector pack (as POST …/uninstall)',
    tags,
    parameters: [packParam],
    responses: { 200: { description: 'Uninstalled', schema: packResult } },
    errors: [404],
  });
  for (const [path, what] of [
    ['agents', 'agent'],
    ['chatbots', 'chatbot'],
  ] as const) {
    const setting = { type: 'object', properties: { kind: { type: 'string' }, id: { type: 'integer' }, enabled: { type: 'boolean' }, entity_types: { type: ['array', 'null'], items: entityType } } };
    openapi.add('get', `/data-shield/${path}/{id}`, {
      summary: `Whether the caller’s ${what} shields its model calls (off unless set)`,
      tags,
      parameters: [idParam],
      responses: { 200: { description: 'The setting', schema: dataOf(setting) } },
      errors: [404],
    });
    openapi.add('put', `/data-shield/${path}/{id}`, {
      summary: `Turn Data Shield on or off for the caller’s ${what}: its model calls are tokenised for the owner as tenant${what === 'chatbot' ? ' (beyond spec 4.17 rule 6, which leaves chatbots and RAG uncovered)' : ''}`,
      tags,
      parameters: [idParam],
      requestBody: dataOf({ type: 'object', required: ['enabled'], properties: { enabled: { type: 'boolean' }, entity_types: { type: ['array', 'null'], items: entityType } } }),
      responses: { 200: { description: 'The setting', schema: dataOf(setting) } },
      errors: [400, 404],
    });
  }
  openapi.add('get', '/internal/data-shield/detectors', {
    summary: 'A tenant’s enabled detectors with its packs expanded, for the Data Shield gateway',
    description: 'Service credentials: X-Service-Key or a service JWT (HS256, INTERNAL_SERVICE_JWT_SECRET).',
    tags: ['internal'],
    auth: 'none',
    parameters: [{ name: 'tenant', in: 'query', required: true, schema: { type: 'string', pattern: '^[1-9][0-9]*$' } }],
    responses: {
      200: {
        description: 'Detectors',
        schema: { type: 'object', properties: { tenant: { type: 'string' }, patterns: { type: 'array' }, word_lists: { type: 'array' }, recognizers: { type: 'array' } } },
      },
    },
    errors: [400, 401],
  });
  openapi.add('post', '/internal/data-shield/audit-events', {
    summary: 'data_shield.tokenise audit rows from the Data Shield gateway; only counts, layers, latencies, model and provider are kept',
    description: 'Service credentials: X-Service-Key or a service JWT (HS256, INTERNAL_SERVICE_JWT_SECRET).',
    tags: ['internal'],
    auth: 'none',
    requestBody: { type: 'object', required: ['events'], properties: { events: { type: 'array', maxItems: 500, items: { type: 'object' } } } },
    responses: { 202: { description: 'Accepted', schema: { type: 'object', properties: { accepted: { type: 'integer' } } } } },
    errors: [400, 401],
  });
}
