import { IsBoolean, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min, MinLength } from 'class-validator';
import { BadRequestError, NotFoundError, validatePlain } from '@docflow/service-kit';

export const DEFAULT_TOP_K = 5;
export const MAX_TOP_K = 20;
export const MAX_QUERY_CHARS = 2000;

const MAX_ID = 2147483647;

/** Body of POST /rag/query. */
export class RagQueryBody {
  @IsString() @MinLength(1) @MaxLength(MAX_QUERY_CHARS) @Matches(/\S/, { message: 'query must not be blank' })
  query!: string;

  @IsOptional() @IsInt() @Min(1) @Max(MAX_TOP_K)
  top_k?: number;

  /** Echoed back, so that a conversation can tie answers together. */
  @IsOptional() @IsString() @MinLength(1) @MaxLength(200)
  session_id?: string;
}

/** Body of POST /internal/rag/query. */
export class InternalRagQueryBody extends RagQueryBody {
  @IsInt() @Min(1) @Max(MAX_ID)
  user_id!: number;
}

/** Body of POST /internal/rag/enable. */
export class InternalRagEnableBody {
  @IsInt() @Min(1) @Max(MAX_ID)
  document_id!: number;

  @IsInt() @Min(1) @Max(MAX_ID)
  user_id!: number;

  @IsOptional() @IsBoolean()
  force_reprocess?: boolean;
}

/** Body of POST /documents/{id}/rag-enable (optional). */
export class RagEnableBody {
  @IsOptional() @IsBoolean()
  force_reprocess?: boolean;
}

export function parseBody<T extends object>(cls: new () => T, body: unknown): T {
  const checked = validatePlain(cls, body ?? {}, { whitelist: false });
  if (!checked.ok) throw BadRequestError.withErrors('Invalid request body', checked.errors);
  return checked.value;
}

/** A path id; anything but a positive 32-bit integer names no document (404, as the documents routes answer). */
export function parseDocumentId(raw: unknown): number {
  if (typeof raw !== 'string' || !/^[1-9]\d{0,9}$/.test(raw) || Number(raw) > MAX_ID) throw new NotFoundError('Document not found');
  return Number(raw);
}
