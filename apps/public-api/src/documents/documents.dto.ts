import { BadRequestError, isPlainObject, NotFoundError } from '@docflow/service-kit';
import { RAG_STATUSES, type RagStatus } from './document-types';
import type { DocumentPatch } from './documents.repository';
import { checkDescription, checkMetadata, checkTags, checkTitle } from './upload/upload-form';

/** `{data: {...}}` (the standard write shape) or the fields at the top level. */
function fieldsOf(body: unknown, errors: string[]): Record<string, unknown> {
  if (!isPlainObject(body)) {
    errors.push('body must be a JSON object');
    return {};
  }
  if (body.data === undefined) return body;
  if (isPlainObject(body.data)) return body.data;
  errors.push('data: must be an object');
  return {};
}

function readPatch(fields: Record<string, unknown>, errors: string[]): DocumentPatch {
  const patch: DocumentPatch = {};
  if (fields.title !== undefined) {
    const title = checkTitle(fields.title, errors);
    if (title === undefined && typeof fields.title === 'string') errors.push('title: must not be empty');
    if (title !== undefined) patch.title = title;
  }
  const description = checkDescription(fields.description, errors);
  if (description !== undefined) patch.description = description;
  if (fields.tags !== undefined && !Array.isArray(fields.tags)) errors.push('tags: must be an array of strings');
  else {
    const tags = checkTags(fields.tags, errors);
    if (tags !== undefined) patch.tags = tags;
  }
  if (fields.metadata !== undefined && !isPlainObject(fields.metadata)) errors.push('metadata: must be an object');
  else {
    const metadata = checkMetadata(fields.metadata, errors);
    if (metadata !== undefined) patch.metadata = metadata;
  }
  return patch;
}

function finish(patch: DocumentPatch, errors: string[], expected: string): DocumentPatch {
  if (errors.length === 0 && Object.keys(patch).length === 0) errors.push(`nothing to change: send ${expected}`);
  if (errors.length > 0) throw BadRequestError.withErrors('Invalid document update', errors);
  return patch;
}

/** PUT /documents/{id}: `{data: {title, description, tags, metadata}}` (any of them; metadata is replaced). */
export function parseDocumentUpdate(body: unknown): DocumentPatch {
  const errors: string[] = [];
  const patch = readPatch(fieldsOf(body, errors), errors);
  return finish(patch, errors, 'data.title, data.description, data.tags or data.metadata');
}

/** PUT /documents/{id}/metadata: `{title, description, tags}` or `{metadata}` (flat or inside `data`). */
export function parseMetadataUpdate(body: unknown): DocumentPatch {
  const errors: string[] = [];
  const patch = readPatch(fieldsOf(body, errors), errors);
  return finish(patch, errors, 'title, description and tags, or metadata');
}

/** PATCH /documents/{id}/rag-status: `{ragEnabled: boolean, ragStatus: enabled|disabled|processing|failed}` (either or both). */
export function parseRagStatusUpdate(body: unknown): DocumentPatch {
  const errors: string[] = [];
  const fields = fieldsOf(body, errors);
  const patch: DocumentPatch = {};
  const enabled = fields.ragEnabled ?? fields.rag_enabled;
  const status = fields.ragStatus ?? fields.rag_status;
  if (enabled !== undefined) {
    if (typeof enabled === 'boolean') patch.ragEnabled = enabled;
    else errors.push('ragEnabled: must be a boolean');
  }
  if (status !== undefined) {
    if (typeof status === 'string' && (RAG_STATUSES as readonly string[]).includes(status)) patch.ragStatus = status as RagStatus;
    else errors.push(`ragStatus: must be one of ${RAG_STATUSES.join(', ')}`);
  }
  return finish(patch, errors, 'ragEnabled and/or ragStatus');
}

/** A positive int4 path id; anything else is a document that does not exist. */
export function parseId(raw: unknown, what = 'Document'): number {
  if (typeof raw !== 'string' || !/^[1-9]\d{0,9}$/.test(raw) || Number(raw) > 2_147_483_647) throw new NotFoundError(`${what} not found`);
  return Number(raw);
}
