import type { JsonSchema, OpenApiRegistry, ParameterDoc } from '../../platform';
import { LIST_PARAMETERS } from '../documents.openapi';

const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
const id: ParameterDoc = { name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } };

const base: Record<string, JsonSchema> = {
  id: { type: 'integer' },
  name: { type: 'string' },
  description: { anyOf: [{ type: 'string' }, { type: 'null' }] },
  owner: { type: 'object', description: 'username only when populated (list with populate=owner or *)', properties: { id: { type: 'integer' }, username: { type: ['string', 'null'] } } },
  createdAt: { type: 'string', format: 'date-time' },
  updatedAt: { type: 'string', format: 'date-time' },
};

export function describeCollectionRoutes(openapi: OpenApiRegistry): void {
  openapi
    .addSchema('CollectionDocumentSummary', {
      type: 'object',
      properties: {
        id: { type: 'integer' },
        title: { type: 'string' },
        mimeType: { type: 'string' },
        visibility: { type: 'string', enum: ['user', 'global'] },
        owner: { type: 'object', properties: { id: { type: 'integer' }, username: { type: 'string' } } },
      },
    })
    .addSchema('Collection', { type: 'object', required: ['id', 'name', 'documents'], properties: { ...base, documents: { type: 'array', items: ref('CollectionDocumentSummary') } } })
    .addSchema('CollectionWithIds', {
      type: 'object',
      required: ['id', 'name', 'documents', 'data'],
      description: 'The collection with its document ids, at the top level and again under data',
      properties: { ...base, documents: { type: 'array', items: { type: 'integer' } }, data: { type: 'object', properties: { ...base, documents: { type: 'array', items: { type: 'integer' } } } } },
    })
    .addSchema('CreateCollectionRequest', {
      description: "`{data: {name, description, documents}}` or flat `{name, description, documents}`; documents are ids of the caller's documents",
      type: 'object',
      properties: {
        data: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, description: { type: 'string' }, documents: { type: 'array', items: { type: 'integer' } } } },
        name: { type: 'string' },
        description: { type: 'string' },
        documents: { type: 'array', items: { type: 'integer' } },
      },
    })
    .addSchema('DocumentRef', { type: 'object', required: ['documentId'], properties: { documentId: { type: 'integer' } } });

  const tags = ['collections'];
  openapi.add('get', '/collections', {
    summary: "The caller's collections, each with its documents as objects",
    tags,
    parameters: LIST_PARAMETERS.filter((p) => p.name !== 'populate').concat([
      { name: 'populate', in: 'query', description: 'documents, owner or * (both); documents are always listed as objects, a populated owner adds its username', schema: { type: 'string' } },
    ]),
    responses: {
      200: {
        description: 'One page',
        schema: { type: 'object', properties: { data: { type: 'array', items: ref('Collection') }, meta: { type: 'object', properties: { pagination: { type: 'object' } } } } },
      },
    },
    errors: [400],
  });
  openapi.add('post', '/collections/create-collection', {
    summary: 'Create a collection, optionally with documents',
    tags,
    requestBody: ref('CreateCollectionRequest'),
    responses: { 201: { description: 'Created', schema: ref('CollectionWithIds') } },
    errors: [400, 404],
  });
  openapi.add('get', '/collections/{id}/documents', {
    summary: 'The documents of a collection',
    tags,
    parameters: [id],
    responses: {
      200: {
        description: 'Documents',
        schema: {
          type: 'object',
          properties: {
            data: { type: 'array', items: ref('Document') },
            meta: { type: 'object', properties: { collection: { type: 'object', properties: { id: base.id ?? {}, name: base.name ?? {}, description: base.description ?? {} } } } },
          },
        },
      },
    },
    errors: [404],
  });
  openapi.add('post', '/collections/{id}/add-document', {
    summary: "Add one of the caller's documents",
    tags,
    parameters: [id],
    requestBody: ref('DocumentRef'),
    responses: { 200: { description: 'The collection with its document ids', schema: ref('CollectionWithIds') } },
    errors: [400, 404],
  });
  openapi.add('post', '/collections/{id}/remove-document', {
    summary: 'Take a document out of the collection (the document itself is kept)',
    description: '`storage` reports what the collection holds afterwards.',
    tags,
    parameters: [id],
    requestBody: ref('DocumentRef'),
    responses: {
      200: {
        description: 'Removed',
        schema: {
          type: 'object',
          properties: {
            message: { type: 'string' },
            collectionId: { type: 'integer' },
            documentId: { type: 'integer' },
            storage: { type: 'object', properties: { documentCount: { type: 'integer' }, totalBytes: { type: 'integer' } } },
          },
        },
      },
    },
    errors: [400, 404],
  });
  openapi.add('delete', '/collections/{id}/delete', {
    summary: 'Delete the collection and the documents that are in no other collection (their files too)',
    tags,
    parameters: [id],
    responses: {
      200: {
        description: 'Deleted',
        schema: { type: 'object', properties: { message: { type: 'string' }, collectionId: { type: 'integer' }, deletedDocumentIds: { type: 'array', items: { type: 'integer' } } } },
      },
    },
    errors: [404],
  });
  openapi.add('get', '/collections/{collectionId}/documents/{documentId}/download', {
    summary: 'Download a document of the collection',
    tags,
    parameters: [
      { name: 'collectionId', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } },
      { name: 'documentId', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } },
    ],
    responses: { 200: { description: 'The file', schema: { type: 'string', format: 'binary' }, contentType: 'application/octet-stream' } },
    errors: [404],
  });
}
