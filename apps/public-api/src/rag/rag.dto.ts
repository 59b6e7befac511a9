import { IsBoolean, IsDefined, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min, MinLength, validateSync } from 'class-validator';
import { BadRequestError, describeValidationErrors, NotFoundError, toInstance } from '@docflow/service-kit';

export const DEFAULT_TOP_K = 5;
export const MAX_TOP_K = 20;
export const MAX_QUERY_CHARS = 2000;

const MAX_ID = 2147483647;

// Each field's checks run right to left and stop at the first that fails
// (see parseBody), so a missing or mistyped value is named as such alone.

/** Body of POST /rag/query. */
export class RagQueryBody {
  @Matches(/\S/, { message: 'query must not be blank' }) @MaxLength(MAX_QUERY_CHARS) @IsString() @IsDefined({ message: 'query is required' })
  query!: string;

  @Max(MAX_TOP_K) @Min(1) @IsInt() @IsOptional()
  top_k?: number;

  /** Echoed back, so that a conversation can tie answers together. */
  @MaxLength(200) @MinLength(1) @IsString() @IsOptional()
  session_id?: string;
}

/** Body of POST /internal/rag/query. */
export class InternalRagQueryBody extends RagQueryBody {
  @Max(MAX_ID) @Min(1) @IsInt() @IsDefined({ message: 'user_id is required' })
  user_id!: number;
}

/** Body of POST /internal/rag/enable. */
export class InternalRagEnableBody {
  @Max(MAX_ID) @Min(1) @IsInt() @IsDefined({ message: 'document_id is required' })
  document_id!: number;

  @Max(MAX_ID) @Min(1) @IsInt() @IsDefined({ message: 'user_id is required' })
  user_id!: number;

  @IsBoolean() @IsOptional()
  force_reprocess?: boolean;
}

/** Body of POST /documents/{id}/rag-enable (optional). */
export class RagEnableBody {
  @IsBoolean() @IsOptional()
  force_reprocess?: boolean;
}

/** The body as an instance of `cls`, or 400 naming the first failed check of each field (part 7). */
export function parseBody<T extends object>(cls: new () => T, body: unknown): T {
  const plain = body ?? {};
  if (typeof plain !== 'object' || Array.isArray(plain)) throw BadRequestError.withErrors('Invalid request body', ['body must be a JSON object']);
  const value = toInstance(cls, plain);
  const errors = validateSync(value, { stopAtFirstError: true, forbidUnknownValues: false });
  if (errors.length) throw BadRequestError.withErrors('Invalid request body', describeValidationErrors(errors));
  return value;
}

/** A path id; anything but a positive 32-bit integer names no document (404, as the documents routes answer). */
export function parseDocumentId(raw: unknown): number {
  if (typeof raw !== 'string' || !/^[1-9]\d{0,9}$/.test(raw) || Number(raw) > MAX_ID) throw new NotFoundError('Document not found');
  return Number(raw);
}
