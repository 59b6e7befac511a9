import { BadRequestError, isPlainObject, NotFoundError, parseBody, Satisfies } from '@docflow/service-kit';
import { RAG_STATUSES, type RagStatus } from './document-types';
import type { DocumentPatch } from './documents.repository';
import { checkDescription, checkMetadata, checkTags, checkTitle } from './upload/upload-form';

/** `{data: {...}}` (the standard write shape) or the fields at the top level. */
function fieldsOf(body: unknown): Record<string, unknown> {
  if (!isPlainObject(body)) throw BadRequestError.withErrors(INVALID_UPDATE, ['body must be a JSON object']);
  if (body.data === undefined) return body;
  if (isPlainObject(body.data)) return body.data;
  throw BadRequestError.withErrors(INVALID_UPDATE, ['data: must be an object']);
}

const INVALID_UPDATE = 'Invalid document update';

/** The problems one of upload-form's checks finds in a value. */
const problemsOf =
  (check: (value: unknown, errors: string[]) => unknown) =>
  (value: unknown): string[] => {
    const errors: string[] = [];
    check(value, errors);
    return errors;
  };

/** PUT /documents/{id} and PUT /documents/{id}/metadata: any of title, description, tags, metadata (checked as an upload's form fields). */
export class DocumentPatchRequest {
  @Satisfies((value) => {
    if (value === undefined) return [];
    const errors = problemsOf(checkTitle)(value);
    return checkTitle(value, []) === undefined && typeof value === 'string' ? [...errors, 'title: must not be empty'] : errors;
  })
  title?: unknown;

  @Satisfies(problemsOf(checkDescription))
  description?: unknown;

  @Satisfies((value) => (value !== undefined && !Array.isArray(value) ? ['tags: must be an array of strings'] : problemsOf(checkTags)(value)))
  tags?: unknown;

  @Satisfies((value) => (value !== undefined && !isPlainObject(value) ? ['metadata: must be an object'] : problemsOf(checkMetadata)(value)))
  metadata?: unknown;
}

/** PATCH /documents/{id}/rag-status: `ragEnabled` and/or `ragStatus` (also snake_case). */
export class RagStatusRequest {
  @Satisfies((value) => (value === undefined || typeof value === 'boolean' ? [] : ['ragEnabled: must be a boolean']))
  ragEnabled?: boolean;

  @Satisfies((value) => (value === undefined || (typeof value === 'string' && (RAG_STATUSES as readonly string[]).includes(value)) ? [] : [`ragStatus: must be one of ${RAG_STATUSES.join(', ')}`]))
  ragStatus?: RagStatus;
}

function readPatch(fields: Record<string, unknown>): DocumentPatch {
  const request = parseBody(DocumentPatchRequest, fields, { message: INVALID_UPDATE });
  // Valid now: the checks give the stored form (trimmed title, tags from a list or a string, metadata from JSON).
  const patch: DocumentPatch = {};
  const title = checkTitle(request.title, []);
  if (title !== undefined) patch.title = title;
  const description = checkDescription(request.description, []);
  if (description !== undefined) patch.description = description;
  const tags = checkTags(request.tags, []);
  if (tags !== undefined) patch.tags = tags;
  const metadata = checkMetadata(request.metadata, []);
  if (metadata !== undefined) patch.metadata = metadata;
  return patch;
}

function finish(patch: DocumentPatch, expected: string): DocumentPatch {
  if (Object.keys(patch).length === 0) throw BadRequestError.withErrors(INVALID_UPDATE, [`nothing to change: send ${expected}`]);
  return patch;
}

/** PUT /documents/{id}: `{data: {title, description, tags, metadata}}` (any of them; metadata is replaced). */
export function parseDocumentUpdate(body: unknown): DocumentPatch {
  return finish(readPatch(fieldsOf(body)), 'data.title, data.description, data.tags or data.metadata');
}

/** PUT /documents/{id}/metadata: `{title, description, tags}` or `{metadata}` (flat or inside `data`). */
export function parseMetadataUpdate(body: unknown): DocumentPatch {
  return finish(readPatch(fieldsOf(body)), 'title, description and tags, or metadata');
}

/** PATCH /documents/{id}/rag-status: `{ragEnabled: boolean, ragStatus: enabled|disabled|processing|failed}` (either or both). */
export function parseRagStatusUpdate(body: unknown): DocumentPatch {
  const fields = fieldsOf(body);
  const request = parseBody(RagStatusRequest, { ragEnabled: fields.ragEnabled ?? fields.rag_enabled, ragStatus: fields.ragStatus ?? fields.rag_status }, { message: INVALID_UPDATE });
  const patch: DocumentPatch = {};
  if (request.ragEnabled !== undefined) patch.ragEnabled = request.ragEnabled;
  if (request.ragStatus !== undefined) patch.ragStatus = request.ragStatus;
  return finish(patch, 'ragEnabled and/or ragStatus');
}

/** A positive int4 path id; anything else is a document that does not exist. */
export function parseId(raw: unknown, what = 'Document'): number {
  if (typeof raw !== 'string' || !/^[1-9]\d{0,9}$/.test(raw) || Number(raw) > 2_147_483_647) throw new NotFoundError(`${what} not found`);
  return Number(raw);
}
