import 'reflect-metadata';
import { IsIn, IsInt, IsISO8601, IsNotEmpty, IsObject, IsOptional, IsString, Min } from 'class-validator';

export const RESULT_STATUSES = ['processing', 'completed', 'failed', 'awaiting_user_input'] as const;
export type ResultStatus = (typeof RESULT_STATUSES)[number];

export const TASK_STATUSES = ['pending', 'running', 'completed', 'failed', 'skipped'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

export interface TaskState {
  status: TaskStatus;
  result?: unknown;
  error?: string | null;
  /** One of ERROR_TYPES when status is failed. */
  error_type?: string;
  task_type?: string;
  label?: string;
  started_at?: string;
  completed_at?: string;
  cost?: number;
}

/**
 * The version processors write. A message without `version` is version 1:
 * what processors sent before the field existed, still decodable while
 * queues drain. A breaking change adds version 2 beside it (STYLE.md).
 */
export const RESULT_MESSAGE_VERSION = 1;
export const RESULT_MESSAGE_VERSIONS = [1] as const;

/**
 * A processor's message on `results_queue` (spec 4.16). `processing` is an
 * in-progress report (per-node progress while running); the others end or
 * pause the job.
 */
export class ResultMessage {
  /** Absent reads as 1 (RESULT_MESSAGE_VERSION). */
  @IsOptional()
  @IsIn(RESULT_MESSAGE_VERSIONS as unknown as number[])
  version?: (typeof RESULT_MESSAGE_VERSIONS)[number];

  @IsString()
  @IsNotEmpty()
  job_id!: string;

  @IsIn(RESULT_STATUSES as unknown as string[])
  status!: ResultStatus;

  @IsOptional()
  @IsObject()
  outputs?: Record<string, unknown>;

  @IsOptional()
  @IsString()
  error?: string | null;

  @IsOptional()
  @IsString()
  failed_node?: string;

  /** One of ERROR_TYPES when status is failed. */
  @IsOptional()
  @IsString()
  error_type?: string;

  /** The execution this result belongs to, when the job is a workflow run. */
  @IsOptional()
  @IsInt()
  @Min(1)
  execution_id?: number;

  @IsOptional()
  @IsObject()
  task_states?: Record<string, TaskState>;

  @IsOptional()
  @IsString()
  awaiting_node?: string;

  @IsOptional()
  @IsObject()
  awaiting_input_schema?: Record<string, unknown>;

  @IsOptional()
  @IsString()
  correlation_token?: string;

  @IsOptional()
  @IsISO8601()
  awaiting_since?: string;

  /** Monotonic per job: a message with a lower sequence than one already applied is stale. */
  @IsOptional()
  @IsInt()
  @Min(0)
  sequence?: number;

  @IsOptional()
  @IsISO8601()
  emitted_at?: string;
}
