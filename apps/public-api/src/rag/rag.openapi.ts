import type { JsonSchema, OpenApiRegistry, ParameterDoc } from '../platform';
import { RAG_PROCESSING_STATUSES, RAG_STATUSES } from '../documents';
import { DEFAULT_TOP_K, MAX_QUERY_CHARS, MAX_TOP_K } from './rag.dto';

const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
const nullable = (schema: JsonSchema): JsonSchema => ({ anyOf: [schema, { type: 'null' }] });
const id: ParameterDoc = { name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } };
const tags = ['rag'];
const SERVICE_AUTH = 'Header `X-Service-Key` (or a service JWT); no user token.';

const ENABLE_RESULT: JsonSchema = {
  type: 'object',
  required: ['document_id', 'rag_status', 'rag_job_id', 'queued'],
  properties: {
    document_id: { type: 'integer' },
    rag_status: { type: 'string', enum: [...RAG_PROCESSING_STATUSES, 'disabled'], description: '`queued` when this call queued a job; otherwise the status the document already had' },
    rag_job_id: nullable({ type: 'string', format: 'uuid' }),
    queued: { type: 'boolean', description: 'Whether this call queued an indexing job' },
    ragEnabled: { type: 'boolean' },
    ragStatus: { type: 'string', enum: [...RAG_STATUSES] },
  },
};

const STATUS: JsonSchema = {
  type: 'object',
  required: ['document_id', 'rag_processing_status', 'rag_chunk_count', 'ragEnabled', 'ragStatus'],
  properties: {
    document_id: { type: 'integer' },
    rag_processing_status: nullable({ type: 'string', enum: [...RAG_PROCESSING_STATUSES] }),
    rag_chunk_count: { type: 'integer' },
    ragEnabled: { type: 'boolean' },
    ragStatus: { type: 'string', enum: [...RAG_STATUSES] },
    rag_error: nullable({ type: 'string' }),
    rag_job_id: nullable({ type: 'string', format: 'uuid' }),
    updatedAt: { type: 'string', format: 'date-time' },
  },
};

const QUERY_FIELDS = {
  query: { type: 'string', minLength: 1, maxLength: MAX_QUERY_CHARS },
  top_k: { type: 'integer', minimum: 1, maximum: MAX_TOP_K, default: DEFAULT_TOP_K },
  session_id: { type: 'string', maxLength: 200, description: 'Echoed back' },
};

const ANSWER: JsonSchema = {
  type: 'object',
  required: ['answer', 'sources', 'query', 'context_used'],
  properties: {
    answer: { type: 'string', description: 'Grounded in the sources, citing them as [1], [2] ... in the order of `sources`' },
    sources: {
      type: 'array',
      items: {
        type: 'object',
        required: ['document_id', 'document_name', 'chunk_text', 'score', 'file_url', 'signed_url'],
        properties: {
          document_id: { type: 'integer' },
          document_name: { type: 'string' },
          chunk_text: { type: 'string' },
          score: { type: 'number', description: 'Reciprocal-rank fusion of full-text and vector rankings, scaled to 0..1' },
          file_url: { type: 'string', format: 'uri' },
          signed_url: { type: 'string', format: 'uri', description: 'Downloads the file without a token until it expires (SIGNED_URL_TTL_SECONDS, default 1 hour)' },
          signed_url_expires_at: { type: 'string', format: 'date-time' },
          page: nullable({ type: 'integer' }),
          chunk_index: { type: 'integer' },
        },
      },
    },
    query: { type: 'string' },
    context_used: { type: 'integer', description: 'Passages the answer was grounded in' },
    answer_mode: { type: 'string', enum: ['generated', 'extractive', 'none'], description: '`extractive`: quoted sentences (local engine, or the model was unreachable)' },
    provider: nullable({ type: 'string' }),
    model: nullable({ type: 'string' }),
    session_id: { type: 'string' },
  },
};

export function describeRagRoutes(openapi: OpenApiRegistry): void {
  openapi.addSchema('RagEnableResult', ENABLE_RESULT).addSchema('RagStatus', STATUS).addSchema('RagAnswer', ANSWER);
  openapi.add('post', '/documents/{id}/rag-enable', {
    summary: 'Index a document for RAG',
    description:
      'Owner only. Queues an indexing job and answers at once (202, `rag_status: queued`); `GET /documents/{id}/rag-status` follows it to `completed` or `failed`. ' +
      'A document already indexed, queued or being indexed is left as it is (200) unless `force_reprocess` is true; then its chunks are rebuilt and replaced at once.',
    tags,
    parameters: [id],
    requestBody: { type: 'object', properties: { force_reprocess: { type: 'boolean', default: false } } },
    responses: { 200: { description: 'Nothing to do', schema: ref('RagEnableResult') }, 202: { description: 'Queued', schema: ref('RagEnableResult') } },
    errors: [400, 404, 503],
  });
  openapi.add('post', '/rag/query', {
    summary: 'Ask a question over your documents and the global ones',
    description: 'Hybrid retrieval (full text and vectors, reciprocal rank fusion) over the chunks of your own and global documents with RAG enabled, then an answer citing them.',
    tags,
    requestBody: { type: 'object', required: ['query'], properties: QUERY_FIELDS },
    responses: { 200: { description: 'Answer and sources', schema: ref('RagAnswer') } },
    // 429: the caller's monthly LLM cost quota is used up (issue 18).
    errors: [400, 429],
  });
  openapi.add('post', '/internal/rag/enable', {
    summary: 'Index a document for RAG, for internal services (rag_enable_task)',
    description: `${SERVICE_AUTH} The user must own the document.`,
    tags: ['internal'],
    auth: 'none',
    requestBody: {
      type: 'object',
      required: ['document_id', 'user_id'],
      properties: { document_id: { type: 'integer' }, user_id: { type: 'integer' }, force_reprocess: { type: 'boolean', default: false } },
    },
    responses: { 200: { description: 'Nothing to do', schema: ref('RagEnableResult') }, 202: { description: 'Queued', schema: ref('RagEnableResult') } },
    errors: [400, 401, 404, 503],
  });
  openapi.add('post', '/internal/rag/query', {
    summary: 'Ask a question as a user, for internal services (rag_query_task)',
    description: `${SERVICE_AUTH} Sees what the user sees: their own documents and the global ones.`,
    tags: ['internal'],
    auth: 'none',
    requestBody: { type: 'object', required: ['query', 'user_id'], properties: { ...QUERY_FIELDS, user_id: { type: 'integer' } } },
    responses: { 200: { description: 'Answer and sources', schema: ref('RagAnswer') } },
    errors: [400, 401],
  });
  openapi.add('get', '/internal/documents/{id}/rag-status', {
    summary: "A document's RAG status, for internal services",
    description: `${SERVICE_AUTH} With \`user_id\`, only that user's document.`,
    tags: ['internal'],
    auth: 'none',
    parameters: [id, { name: 'user_id', in: 'query', schema: { type: 'integer', minimum: 1 } }],
    responses: { 200: { description: 'RAG status', schema: ref('RagStatus') } },
    errors: [400, 401, 404],
  });
}
