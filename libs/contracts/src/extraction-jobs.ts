import 'reflect-metadata';
import { Type } from 'class-transformer';
import { ArrayNotEmpty, IsArray, IsIn, IsInt, IsObject, IsOptional, IsString, Min, ValidateNested } from 'class-validator';
import { MODEL_TYPES, type ModelType } from './llm';

/**
 * Payload of the jobs on `extraction_queue` (classification,
 * document_extraction, OCR; spec 4.5, 4.16): what the public API builds and
 * the router forwards unmodified to the extraction processor, which
 * validates it with these classes.
 */

/** One document of an extraction job. The processor reads its text from GET /api/internal/documents/{id}/text unless `text` is given. */
export class JobDocument {
  @IsInt()
  @Min(1)
  id!: number;

  @IsOptional()
  @IsString()
  title?: string;

  @IsOptional()
  @IsString()
  mime_type?: string;

  @IsOptional()
  @IsString()
  file_url?: string;

  /** The document's text extraction status when the job was made (informational). */
  @IsOptional()
  @IsString()
  text_status?: string;

  /** Text the caller already has; the document's stored text is read when absent. */
  @IsOptional()
  @IsString()
  text?: string;
}

/** `payload.config` of classification, document_extraction and OCR jobs. */
export class ExtractionJobConfig {
  @IsOptional()
  @IsIn(MODEL_TYPES as unknown as string[])
  model_type?: ModelType;

  /** document_extraction: the stored prompt (rendered with @docflow/rtio). */
  @IsOptional()
  prompt_id?: number | string;

  /** document_extraction: a prompt written inline, used when no prompt_id is given. */
  @IsOptional()
  @IsString()
  prompt_text?: string;

  @IsOptional()
  @IsIn(['json', 'text'])
  output_format?: 'json' | 'text';
}

export class ExtractionJobPayload {
  @IsArray()
  @ArrayNotEmpty()
  @ValidateNested({ each: true })
  @Type(() => JobDocument)
  documents!: JobDocument[];

  @IsOptional()
  @IsInt()
  @Min(1)
  collection_id?: number;

  @IsInt()
  @Min(1)
  user_id!: number;

  /** The platform's signature of (job id, user_id) (`signJobUser` of @docflow/internal-auth): the processor acts for no unsigned user. */
  @IsString()
  user_signature!: string;

  @IsOptional()
  @IsObject()
  metadata?: Record<string, unknown>;

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ExtractionJobConfig)
  config?: ExtractionJobConfig;
}
