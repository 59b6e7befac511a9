import type { JsonSchema, OpenApiRegistry, ParameterDoc } from '../platform';
import { RAG_PROCESSING_STATUSES, RAG_STATUSES, TEXT_STATUSES, VISIBILITIES } from './document-types';

const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
const nullable = (schema: JsonSchema): JsonSchema => ({ anyOf: [schema, { type: 'null' }] });
const id: ParameterDoc = { name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } };
const file: JsonSchema = { type: 'string', format: 'binary', description: 'The file content' };

export const LIST_PARAMETERS: ParameterDoc[] = [
  { name: 'pagination[page]', in: 'query', schema: { type: 'integer', minimum: 1, default: 1 } },
  { name: 'pagination[pageSize]', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 25 } },
  { name: 'sort', in: 'query', description: 'e.g. `createdAt:desc` (default) or `title:asc`', schema: { type: 'string' } },
  { name: 'populate', in: 'query', description: '`owner`, `collections` or `*`', schema: { type: 'string' } },
  { name: 'filters', in: 'query', description: 'Strapi-style filters, e.g. `filters[title][$contains]=report`, `filters[visibility][$eq]=global`', schema: { type: 'object' } },
];

const DOCUMENT: JsonSchema = {
  type: 'object',
  required: ['id', 'title', 'file_url', 'fileUrl', 'mime_type', 'mimeType', 'file_size', 'fileSize', 'tags', 'visibility', 'owner', 'ragEnabled', 'ragStatus', 'metadata', 'createdAt', 'updatedAt'],
  properties: {
    id: { type: 'integer' },
    title: { type: 'string' },
    description: nullable({ type: 'string' }),
    file_url: { type: 'string', format: 'uri', description: 'Download URL (the public global download URL for a global document)' },
    fileUrl: { type: 'string', format: 'uri', description: 'Same as file_url' },
    mime_type: { type: 'string', description: 'Type judged from the content; application/pdf for a converted DOCX' },
    mimeType: { type: 'string', description: 'Same as mime_type' },
    file_size: { type: 'integer', description: 'Bytes' },
    fileSize: { type: 'integer', description: 'Same as file_size' },
    filename: { type: 'string', description: 'Sanitised filename used for downloads' },
    sha256: { type: 'string', description: 'SHA-256 (hex) of the served content' },
    tags: { type: 'array', items: { type: 'string' } },
    visibility: { type: 'string', enum: [...VISIBILITIES] },
    globalKey: nullable({ type: 'string' }),
    owner: { type: 'object', required: ['id'], properties: { id: { type: 'integer' }, username: nullable({ type: 'string' }) } },
    documentType: nullable({
      type: 'object',
      description: 'Present when a DOCX was converted to PDF',
      properties: { original_mime_type: { type: 'string' }, converted_to: { type: 'string', enum: ['application/pdf'] }, pages: nullable({ type: 'integer' }) },
    }),
    metadata: { type: 'object', additionalProperties: true },
    textStatus: { type: 'string', enum: [...TEXT_STATUSES], description: 'Background text extraction' },
    ragEnabled: { type: 'boolean' },
    ragStatus: { type: 'string', enum: [...RAG_STATUSES] },
    rag_processing_status: nullable({ type: 'string', enum: [...RAG_PROCESSING_STATUSES] }),
    rag_chunk_count: { type: 'integer' },
    createdAt: { type: 'string', format: 'date-time' },
    updatedAt: { type: 'string', format: 'date-time' },
    collections: { type: 'array', description: 'With populate=collections', items: { type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' } } } },
  },
};

const PAGINATION: JsonSchema = {
  type: 'object',
  properties: { page: { type: 'integer' }, pageSize: { type: 'integer' }, pageCount: { type: 'integer' }, total: { type: 'integer' } },
};

const UPLOAD_DESCRIPTION = [
  'Multipart form (`multipart/form-data`), in one of two variants:',
  '- `file` (binary, required) with text fields `title` (default: the filename), `description`, `tags` (JSON array string),',
  '  `global` (`true`/`false`, default false; super administrators only, else 403), `globalKey` (default generated), `metadata` (JSON object string);',
  '- `files` (one to 10 files) with `data`, a JSON object holding the same fields (`{"title": ...}`).',
  'The type is judged from the content (PDF, PNG, JPEG, GIF, WebP, text, CSV, JSON, DOC, DOCX, XLS, XLSX); another type, or a declared',
  'Content-Type or extension that contradicts the content, is 400. Files over UPLOAD_MAX_FILE_SIZE_MB are 413. Each file counts against the',
  "owner's storage quota: over it is 400, from 80 % the response carries `warning`. A DOCX is converted to PDF during the request (LibreOffice,",
  'bounded by DOCX_CONVERSION_TIMEOUT_SECONDS); the document then serves the PDF and keeps the original (`?variant=original` on download).',
  'Text is extracted in the background (`textStatus`).',
].join('\n');

export function describeDocumentRoutes(openapi: OpenApiRegistry): void {
  openapi
    .addSchema('Document', DOCUMENT)
    .addSchema('DocumentList', {
      type: 'object',
      required: ['data', 'meta'],
      properties: { data: { type: 'array', items: ref('Document') }, meta: { type: 'object', properties: { pagination: PAGINATION } } },
    })
    .addSchema('DocumentResponse', { type: 'object', required: ['data'], properties: { data: ref('Document') } })
    .addSchema('DocumentUploadResponse', {
      allOf: [ref('Document')],
      type: 'object',
      required: ['data'],
      description: "The first document's fields at the top level, and every uploaded document under data",
      properties: {
        data: { type: 'array', items: ref('Document') },
        warning: {
          type: 'object',
          description: 'Present from 80 % of the storage quota',
          properties: { code: { type: 'string', enum: ['quota_warning'] }, message: { type: 'string' }, used_bytes: { type: 'integer' }, quota_bytes: { type: 'integer' }, ratio: { type: 'number' } },
        },
      },
    })
    .addSchema('DocumentUpdateRequest', {
      type: 'object',
      required: ['data'],
      properties: {
        data: {
          type: 'object',
          properties: { title: { type: 'string' }, description: nullable({ type: 'string' }), tags: { type: 'array', items: { type: 'string' } }, metadata: { type: 'object' } },
        },
      },
    })
    .addSchema('DocumentMetadataRequest', {
      description: 'Either `{title, description, tags}` or `{metadata}` (metadata replaces the stored object)',
      type: 'object',
      properties: { title: { type: 'string' }, description: nullable({ type: 'string' }), tags: { type: 'array', items: { type: 'string' } }, metadata: { type: 'object' } },
    })
    .addSchema('DocumentRagStatusRequest', { type: 'object', properties: { ragEnabled: { type: 'boolean' }, ragStatus: { type: 'string', enum: [...RAG_STATUSES] } } })
    .addSchema('DocumentRagStatus', {
      type: 'object',
      required: ['rag_processing_status', 'rag_chunk_count'],
      properties: {
        rag_processing_status: nullable({ type: 'string', enum: [...RAG_PROCESSING_STATUSES] }),
        rag_chunk_count: { type: 'integer' },
        ragEnabled: { type: 'boolean' },
        ragStatus: { type: 'string', enum: [...RAG_STATUSES] },
      },
    })
    .addSchema('DocumentSignedUrl', { type: 'object', required: ['url', 'expires_at'], properties: { url: { type: 'string', format: 'uri' }, expires_at: { type: 'string', format: 'date-time' } } });

  const tags = ['documents'];
  const documentResponse = { 200: { description: 'The document', schema: ref('DocumentResponse') } };
  const fileResponse = { 200: { description: 'The file, as an attachment with its stored content type', schema: file, contentType: 'application/octet-stream' } };

  openapi.add('post', '/documents/upload', {
    summary: 'Upload one or more documents',
    description: UPLOAD_DESCRIPTION,
    tags,
    responses: { 201: { description: 'Stored', schema: ref('DocumentUploadResponse') } },
    errors: [400, 403, 409, 413, 422, 503],
  });
  openapi.add('get', '/documents', {
    summary: "The caller's documents",
    tags,
    parameters: LIST_PARAMETERS,
    responses: { 200: { description: 'One page', schema: ref('DocumentList') } },
    errors: [400],
  });
  openapi.add('get', '/documents/global', {
    summary: 'Global documents (auth optional)',
    tags,
    auth: 'none',
    parameters: LIST_PARAMETERS,
    responses: { 200: { description: 'One page', schema: ref('DocumentList') } },
    errors: [400, 401],
  });
  openapi.add('get', '/documents/global/download/{key}', {
    summary: 'Download a global document by its key (no auth)',
    tags,
    auth: 'none',
    parameters: [{ name: 'key', in: 'path', required: true, schema: { type: 'string' } }],
    responses: fileResponse,
    errors: [404],
  });
  openapi.add('get', '/documents/{id}', {
    summary: "One of the caller's documents, or any global document",
    tags,
    parameters: [id, { name: 'populate', in: 'query', description: '`owner` (always shown), `collections` or `*`', schema: { type: 'string' } }],
    responses: documentResponse,
    errors: [400, 404],
  });
  openapi.add('put', '/documents/{id}', {
    summary: 'Change title, description, tags or metadata',
    tags,
    parameters: [id],
    requestBody: ref('DocumentUpdateRequest'),
    responses: documentResponse,
    errors: [400, 404],
  });
  openapi.add('put', '/documents/{id}/metadata', {
    summary: 'Change title, description and tags, or replace metadata',
    tags,
    parameters: [id],
    requestBody: ref('DocumentMetadataRequest'),
    responses: documentResponse,
    errors: [400, 404],
  });
  openapi.add('patch', '/documents/{id}/rag-status', {
    summary: 'Set ragEnabled and ragStatus directly',
    tags,
    parameters: [id],
    requestBody: ref('DocumentRagStatusRequest'),
    responses: documentResponse,
    errors: [400, 404],
  });
  openapi.add('get', '/documents/{id}/rag-status', {
    summary: 'RAG indexing status',
    tags,
    parameters: [id],
    responses: { 200: { description: 'Status', schema: ref('DocumentRagStatus') } },
    errors: [404],
  });
  openapi.add('delete', '/documents/{id}', {
    summary: 'Delete a document and its stored files (its bytes return to the quota)',
    tags,
    parameters: [id],
    responses: { 200: { description: 'Deleted', schema: { type: 'object', properties: { data: { type: 'object', properties: { id: { type: 'integer' } } } } } } },
    errors: [404],
  });
  openapi.add('get', '/documents/{id}/download', {
    summary: "Download the caller's or a global document (the PDF of a converted DOCX; `variant=original` for the uploaded file)",
    tags,
    parameters: [id, { name: 'variant', in: 'query', schema: { type: 'string', enum: ['served', 'original'] } }],
    responses: fileResponse,
    errors: [404],
  });
  openapi.add('get', '/documents/{id}/signed-url', {
    summary: 'A signed download URL for the document, usable without a token until it expires',
    tags,
    parameters: [id],
    responses: { 200: { description: 'Signed URL', schema: ref('DocumentSignedUrl') } },
    errors: [404],
  });
  openapi.add('get', '/documents/{id}/signed-download', {
    summary: 'Download through a signed URL (no bearer token)',
    description: 'An expired or altered signature is 403.',
    tags,
    auth: 'none',
    parameters: [id, { name: 'expires', in: 'query', required: true, schema: { type: 'integer' } }, { name: 'signature', in: 'query', required: true, schema: { type: 'string' } }],
    responses: fileResponse,
    errors: [403, 404],
  });
  openapi.add('get', '/internal/documents', {
    summary: "A user's documents, for internal services",
    description: 'Header `X-Service-Key` or a service JWT. At most 1000 documents, newest first.',
    tags: ['internal'],
    auth: 'none',
    parameters: [
      { name: 'user_id', in: 'query', required: true, schema: { type: 'integer' } },
      { name: 'enabled_only', in: 'query', description: 'Only documents RAG answers from: ragEnabled, and ragStatus not disabled', schema: { type: 'boolean' } },
    ],
    responses: { 200: { description: 'Documents', schema: { type: 'object', properties: { data: { type: 'array', items: ref('Document') } } } } },
    errors: [400, 401],
  });
  openapi.add('get', '/internal/documents/{id}/signed-url', {
    summary: 'A signed download URL for any document, for internal services and RAG sources',
    description: 'Header `X-Service-Key` or a service JWT.',
    tags: ['internal'],
    auth: 'none',
    parameters: [id],
    responses: { 200: { description: 'Signed URL', schema: ref('DocumentSignedUrl') } },
    errors: [401, 404],
  });
}
