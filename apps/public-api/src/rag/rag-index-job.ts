import { IsBoolean, IsIn, IsInt, IsISO8601, IsUUID, Max, Min } from 'class-validator';
import { PUBLIC_API_QUEUES } from '@docflow/contracts';

/**
 * The durable work queue of RAG indexing jobs. Only the public API publishes
 * and consumes it (the text and the chunks live in its tables), so the
 * message lives here; the name is in @docflow/contracts for the router's
 * queue depths.
 */
export const RAG_INDEX_QUEUE = PUBLIC_API_QUEUES.ragIndex;

/** One indexing job: (re)build the chunks of a document. Validated by the broker at both ends. */
export class RagIndexJobV1 {
  @IsIn([1])
  version!: 1;

  /** The job id answered as `rag_job_id`; the document row records the current one, so a superseded job is a no-op. */
  @IsUUID()
  job_id!: string;

  @IsInt()
  @Min(1)
  @Max(2147483647)
  document_id!: number;

  /** Who asked (the document's owner). */
  @IsInt()
  @Min(1)
  @Max(2147483647)
  user_id!: number;

  @IsBoolean()
  force_reprocess!: boolean;

  @IsISO8601()
  requested_at!: string;
}
