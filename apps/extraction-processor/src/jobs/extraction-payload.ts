import 'reflect-metadata';
import { Type } from 'class-transformer';
import { ArrayNotEmpty, IsArray, IsIn, IsInt, IsObject, IsOptional, IsString, Min, ValidateNested } from 'class-validator';
import { MODEL_TYPES, type ModelType } from '@docflow/contracts';
import { validatePlain } from '@docflow/service-kit';

/** One document of an extraction job, as the public API names it. */
export class JobDocument {
  @IsInt() @Min(1)
  id!: number;

  @IsOptional() @IsString()
  title?: string;

  @IsOptional() @IsString()
  mime_type?: string;

  @IsOptional() @IsString()
  file_url?: string;

  /** Text the caller already has; the document's stored text is read when absent. */
  @IsOptional() @IsString()
  text?: string;
}

/** `payload.config` of classification, document_extraction and OCR jobs. */
export class ExtractionJobConfig {
  @IsOptional() @IsIn(MODEL_TYPES as unknown as string[])
  model_type?: ModelType;

  /** document_extraction: the stored prompt (rendered with @docflow/rtio). */
  @IsOptional()
  prompt_id?: number | string;

  /** document_extraction: a prompt written inline, used when no prompt_id is given. */
  @IsOptional() @IsString()
  prompt_text?: string;

  @IsOptional() @IsIn(['json', 'text'])
  output_format?: 'json' | 'text';
}

/** Payload of the jobs on `extraction_queue` (spec 4.5, 4.16). */
export class ExtractionJobPayload {
  @IsArray() @ArrayNotEmpty() @ValidateNested({ each: true }) @Type(() => JobDocument)
  documents!: JobDocument[];

  @IsOptional() @IsInt() @Min(1)
  collection_id?: number;

  @IsInt() @Min(1)
  user_id!: number;

  /** The platform's signature of (job id, user_id) (`signJobUser` of @docflow/internal-auth). */
  @IsString()
  user_signature!: string;

  @IsOptional() @IsObject()
  metadata?: Record<string, unknown>;

  @IsOptional() @IsObject() @ValidateNested() @Type(() => ExtractionJobConfig)
  config?: ExtractionJobConfig;
}

/** The validated payload, or the problems that make the job unusable. */
export function parseExtractionPayload(payload: unknown, maxDocuments: number): { ok: true; value: ExtractionJobPayload } | { ok: false; errors: string[] } {
  const parsed = validatePlain(ExtractionJobPayload, payload);
  if (!parsed.ok) return parsed;
  const errors: string[] = [];
  if (parsed.value.documents.length > maxDocuments) errors.push(`documents: at most ${maxDocuments} documents per job (got ${parsed.value.documents.length})`);
  const promptId = parsed.value.config?.prompt_id;
  if (promptId !== undefined && promptIdOf(promptId) === undefined) errors.push('config.prompt_id: must be a positive integer');
  return errors.length ? { ok: false, errors } : parsed;
}

/** A prompt id given as a number or a digit string. */
export function promptIdOf(value: unknown): number | undefined {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : NaN;
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}
