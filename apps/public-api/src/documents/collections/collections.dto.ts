import { BadRequestError, isPlainObject } from '@docflow/service-kit';

export interface CreateCollectionBody {
  name: string;
  description: string | null;
  documents: number[];
}

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

/** `{data: {name, description, documents}}` or flat `{name, description, documents}`; documents are ids (or `{id}` objects). */
export function parseCreateCollection(body: unknown): CreateCollectionBody {
  const errors: string[] = [];
  const fields = fieldsOf(body);
  let name = '';
  if (fields.name !== undefined && fields.name !== null && typeof fields.name !== 'string') errors.push('name: must be a string');
  else {
    name = typeof fields.name === 'string' ? fields.name.trim() : '';
    if (name === '') errors.push('name: is required');
    else if (name.length > NAME_MAX) errors.push(`name: must be at most ${NAME_MAX} characters`);
  }
  let description: string | null = null;
  if (fields.description !== undefined && fields.description !== null) {
    if (typeof fields.description !== 'string') errors.push('description: must be a string');
    else if (fields.description.length > DESCRIPTION_MAX) errors.push(`description: must be at most ${DESCRIPTION_MAX} characters`);
    else description = fields.description;
  }
  const documents: number[] = [];
  if (fields.documents !== undefined && fields.documents !== null) {
    if (!Array.isArray(fields.documents)) errors.push('documents: must be an array of document ids');
    else if (fields.documents.length > DOCUMENTS_MAX) errors.push(`documents: at most ${DOCUMENTS_MAX}`);
    else {
      for (const [i, item] of fields.documents.entries()) {
        const id = toId(isPlainObject(item) ? item.id : item);
        if (id !== undefined) documents.push(id);
        else errors.push(`documents[${i}]: must be a document id`);
      }
    }
  }
  if (errors.length > 0) throw BadRequestError.withErrors('Invalid collection', errors);
  return { name, description, documents };
}

/** `{documentId}` (also `document_id`, or inside `data`). */
export function parseDocumentRef(body: unknown): number {
  const fields = fieldsOf(body);
  const id = toId(fields.documentId ?? fields.document_id);
  if (id === undefined) throw BadRequestError.withErrors('Invalid request', ['documentId: a document id is required']);
  return id;
}
