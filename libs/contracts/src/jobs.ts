import 'reflect-metadata';
import { ArrayMaxSize, IsArray, IsIn, IsNotEmpty, IsObject, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { QUEUES, QueueName } from './queues';

export const JOB_TYPES = ['task_based_workflow', 'document_extraction', 'classification', 'OCR'] as const;
export type JobType = (typeof JOB_TYPES)[number];

/** Which work queue a job type goes to (spec 4.16). */
export function queueForJobType(jobType: JobType): QueueName {
  switch (jobType) {
    case 'task_based_workflow':
      return QUEUES.workflow;
    case 'document_extraction':
    case 'classification':
    case 'OCR':
      return QUEUES.extraction;
    default: {
      const never: never = jobType;
      throw new Error(`unknown job type ${String(never)}`);
    }
  }
}

export const JOB_STATUSES = ['queued', 'processing', 'completed', 'failed', 'awaiting_user_input'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
export const TERMINAL_JOB_STATUSES: readonly JobStatus[] = ['completed', 'failed'];

/** What a job id may contain (besides being 1 to 200 characters). */
export const JOB_ID_PATTERN = /^[A-Za-z0-9._:-]+$/;

/** Body of POST {router_url}/api/v1/jobs. */
export class JobRequest {
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  @Matches(JOB_ID_PATTERN, { message: 'job_id may only contain letters, digits and . _ : -' })
  job_id!: string;

  @IsIn(JOB_TYPES as unknown as string[], { message: `job_type must be one of ${JOB_TYPES.join(', ')}` })
  job_type!: JobType;

  @IsObject()
  payload!: Record<string, unknown>;

  /**
   * Spec 4.16 lets callers send their JWT here. It is accepted and dropped:
   * nothing downstream needs a user's token (jobs carry a signed user), so
   * the router neither stores it nor puts it on a queue (issue #13).
   */
  @IsOptional()
  @IsString()
  token?: string;
}

/** Most job ids one purge request may name; the public API sends more in several requests. */
export const JOB_PURGE_MAX = 1000;

/**
 * Body of POST {router_url}/api/v1/jobs/purge: the router's records of the
 * jobs of an account being deleted (issue #18; the router keeps no user id,
 * so the public API names the jobs of that user's executions).
 */
export class JobPurgeRequest {
  @IsArray()
  @ArrayMaxSize(JOB_PURGE_MAX)
  @IsString({ each: true })
  @MaxLength(200, { each: true })
  job_ids!: string[];
}

/** Response of POST /api/v1/jobs/purge: how many of the named jobs the router held (and deleted). */
export interface JobPurgeResponse {
  deleted: number;
}

/** Response of POST /api/v1/jobs. */
export interface JobAcceptedResponse {
  job_id: string;
  success: boolean;
  message: string;
}

/** Response of GET /api/v1/jobs/{job_id}. */
export interface JobStatusResponse {
  job_id: string;
  success: boolean;
  message: string;
  status: JobStatus;
  job_type: JobType;
  result?: Record<string, unknown> | null;
  error?: string | null;
  metadata: {
    status: JobStatus;
    created_at: string;
    updated_at: string;
    queue: QueueName;
    completed_at?: string | null;
  };
}

/**
 * The message a processor receives on `workflow_queue` or `extraction_queue`.
 * Version 1: the router's job request, with the payload forwarded unmodified.
 */
export class JobMessageV1 {
  @IsIn([1])
  version!: 1;

  @IsString()
  @IsNotEmpty()
  job_id!: string;

  @IsIn(JOB_TYPES as unknown as string[])
  job_type!: JobType;

  @IsObject()
  payload!: Record<string, unknown>;

  @IsString()
  submitted_at!: string;
}
