import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsInt, IsObject, IsOptional, Max, Min } from 'class-validator';

export const EXTRACTION_JOB_TYPES = ['classification', 'document_extraction', 'OCR'] as const;
export type ExtractionJobType = (typeof EXTRACTION_JOB_TYPES)[number];

/** Most documents one job may carry. */
export const MAX_JOB_DOCUMENTS = 200;

/** Body of POST /jobs/collection/{collection_id}/generate (spec 4.5). */
export class GenerateJobBody {
  @IsOptional()
  @IsIn(EXTRACTION_JOB_TYPES as unknown as string[], { message: `job_type must be one of ${EXTRACTION_JOB_TYPES.join(', ')}` })
  job_type?: ExtractionJobType;

  /** Default: every document of the collection. */
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1, { message: 'document_ids must not be empty (leave it out for every document of the collection)' })
  @ArrayMaxSize(MAX_JOB_DOCUMENTS, { message: `document_ids may hold at most ${MAX_JOB_DOCUMENTS} ids` })
  @IsInt({ each: true, message: 'document_ids must hold integer ids' })
  @Min(1, { each: true, message: 'document_ids must hold positive ids' })
  @Max(2147483647, { each: true, message: 'document_ids must hold valid ids' })
  document_ids?: number[];

  @IsOptional()
  @IsObject({ message: 'metadata must be an object' })
  metadata?: Record<string, unknown>;

  @IsOptional()
  @IsObject({ message: 'config must be an object' })
  config?: Record<string, unknown>;
}
