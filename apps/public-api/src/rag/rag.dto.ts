import { IsBoolean, IsOptional } from 'class-validator';
import { NotFoundError, parseBody } from '@docflow/service-kit';

// The RAG bodies that processors send live in libs/contracts (internal API shapes); the public query body is their base.
export { DEFAULT_TOP_K, InternalRagEnableBody, InternalRagQueryBody, MAX_QUERY_CHARS, MAX_TOP_K, RagQueryBody } from '@docflow/contracts';

/** Body of POST /documents/{id}/rag-enable (optional). */
export class RagEnableBody {
  @IsBoolean()
  @IsOptional()
  force_reprocess?: boolean;
}

/** The body as an instance of `cls`, or 400 naming the first failed check of each field (part 7). */
export function parseRagBody<T extends object>(cls: new () => T, body: unknown): T {
  return parseBody(cls, body, { emptyAsObject: true, firstErrorOnly: true });
}

const MAX_ID = 2147483647;

/** A path id; anything but a positive 32-bit integer names no document (404, as the documents routes answer). */
export function parseDocumentId(raw: unknown): number {
  if (typeof raw !== 'string' || !/^[1-9]\d{0,9}$/.test(raw) || Number(raw) > MAX_ID) throw new NotFoundError('Document not found');
  return Number(raw);
}
