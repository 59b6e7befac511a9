import { BadRequestError, isPlainObject, parseBody, Satisfies } from '@docflow/service-kit';

const NAME_MAX = 255;
const DESCRIPTION_MAX = 10_000;
const DOCUMENTS_MAX = 1000;

function isId(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 2_147_483_647;
}

/** A document id given as an integer or a numeric string (Strapi clients send both). */
function toId(raw: unknown): number | undefined {
  const id = typeof raw === 'string' && /^\d{1,10}$/.test(raw) ? Number(raw) : raw;
  return isId(id) ? id : undefined;
}

/** `{data: {...}}` (the standard write shape) or the fields at the top level; a `data` that is not an object is an error. */
function fieldsOf(body: unknown): Record<string, unknown> {
  if (!isPlainObject(body)) throw BadRequestError.withErrors('Invalid request', ['body must be a JSON object']);
  if (body.data === undefined || body.data === null) return body;
  if (isPlainObject(body.data)) return body.data;
  throw BadRequestError.withErrors('Invalid request', ['data: must be an object']);
}

function nameProblems(value: unknown): string[] {
  if (value !== undefined && value !== null && typeof value !== 'string') return ['must be a string'];
  const name = typeof value === 'string' ? value.trim() : '';
  if (name === '') return ['is required'];
  return name.length > NAME_MAX ? [`must be at most ${NAME_MAX} characters`] : [];
}

function descriptionProblems(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (typeof value !== 'string') return ['must be a string'];
  return value.length > DESCRIPTION_MAX ? [`must be at most ${DESCRIPTION_MAX} characters`] : [];
}

function documentsProblems(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return ['must be an array of document ids'];
  if (value.length > DOCUMENTS_MAX) return [`at most ${DOCUMENTS_MAX}`];
  return value.flatMap((item: unknown, i) => (toId(isPlainObject(item) ? item.id : item) === undefined ? [`documents[${i}]: must be a document id`] : []));
}

/** POST /collections/create-collection: `name` (trimmed, required), `description`, `documents` (ids, numeric strings or `{id}` objects). */
export class CreateCollectionRequest {
  @Satisfies(nameProblems)
  name!: string;

  @Satisfies(descriptionProblems)
  description?: string | null;

  @Satisfies(documentsProblems)
  documents?: unknown[] | null;
}

export interface CreateCollectionBody {
  name: string;
  description: string | null;
  documents: number[];
}

/** `{data: {name, description, documents}}` or flat `{name, description, documents}`, read with parseBody (400 `Invalid collection`). */
export function parseCreateCollection(body: unknown): CreateCollectionBody {
  const request = parseBody(CreateCollectionRequest, fieldsOf(body), { message: 'Invalid collection' });
  const documents = (request.documents ?? []).map((item) => toId(isPlainObject(item) ? item.id : item) as number);
  return { name: request.name.trim(), description: request.description ?? null, documents };
}

/** The document of add-document and remove-document. */
export class DocumentRefRequest {
  @Satisfies((value) => (toId(value) === undefined ? ['a document id is required'] : []))
  documentId!: number | string;
}

/** `{documentId}` (also `document_id`, or inside `data`), read with parseBody (400 `Invalid request`). */
export function parseDocumentRef(body: unknown): number {
  const fields = fieldsOf(body);
  const request = parseBody(DocumentRefRequest, { documentId: fields.documentId ?? fields.document_id }, { message: 'Invalid request' });
  return toId(request.documentId) as number;
}
