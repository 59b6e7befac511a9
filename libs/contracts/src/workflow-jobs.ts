import 'reflect-metadata';
import { Type } from 'class-transformer';
import { IsInt, IsISO8601, IsNotEmpty, IsObject, IsOptional, IsString, MaxLength, Min, ValidateNested } from 'class-validator';

/**
 * Payload of a `task_based_workflow` job, as the public API builds it for
 * execution `<id>`. The spec names `workflow_definition` and `inputs`; the
 * rest is Docflow's own (and optional, so a bare spec payload still runs).
 *
 * Job ids: `wf_<execution_id>` for the first run; a resume is a new job
 * `wf_<execution_id>_resume_<n>` carrying `resume`.
 */
export class ResumeInstruction {
  @IsString()
  @IsNotEmpty()
  node_id!: string;

  @IsObject()
  payload!: Record<string, unknown>;

  /** Task states and outputs recorded before the pause, as the public API last saw them. */
  @IsOptional()
  @IsObject()
  task_states?: Record<string, unknown>;

  @IsOptional()
  @IsObject()
  outputs?: Record<string, unknown>;
}

/**
 * A retry of a failed execution (issue #15): the nodes that completed in
 * `execution_id`, node id → `{output, started_at, completed_at}`. The run
 * starts from them and runs only what did not complete.
 */
export class RetryOrigin {
  @IsInt()
  @Min(1)
  execution_id!: number;

  @IsObject()
  completed_nodes!: Record<string, unknown>;
}

export class WorkflowJobPayload {
  @IsObject()
  workflow_definition!: Record<string, unknown>;

  @IsOptional()
  @IsObject()
  inputs?: Record<string, unknown>;

  @IsOptional()
  @IsInt()
  @Min(1)
  execution_id?: number;

  @IsOptional()
  @IsInt()
  @Min(1)
  activity_id?: number;

  /** The user the run acts for; taken only together with `user_signature`. */
  @IsOptional()
  @IsInt()
  @Min(1)
  user_id?: number;

  /** The platform's signature of (job id, user_id) (`signJobUser` of @docflow/internal-auth). */
  @IsOptional()
  @IsString()
  user_signature?: string;

  /** Absolute deadline (from the activity's execution_deadline_seconds); past it the run fails with WORKFLOW_DEADLINE_EXCEEDED. */
  @IsOptional()
  @IsISO8601()
  deadline_at?: string;

  @IsOptional()
  @IsObject()
  data_shield_policy?: Record<string, unknown>;

  @IsOptional()
  @ValidateNested()
  @Type(() => ResumeInstruction)
  resume?: ResumeInstruction;

  @IsOptional()
  @ValidateNested()
  @Type(() => RetryOrigin)
  retry_of?: RetryOrigin;
}

/** `wf_<execution_id>` or `wf_<execution_id>_resume_<n>` → execution id; undefined for other jobs. */
export function executionIdFromJobId(jobId: string): number | undefined {
  const m = /^wf_(\d+)(?:_resume_\d+)?$/.exec(jobId);
  if (!m) return undefined;
  const id = Number(m[1]);
  return Number.isSafeInteger(id) && id > 0 ? id : undefined;
}

/**
 * Where the workflow processor keeps an execution's checkpoints and parked
 * run (its tables `workflow_node_runs` and `workflow_wakeups`): its execution
 * id when the job names one, otherwise the job id without a `_resume_<n>`
 * suffix, so the first run and every resume of one execution share them. The
 * public API reads it to delete them with an account (issue #18).
 */
export function executionKeyOf(jobId: string, executionId: number | undefined): string {
  return executionId !== undefined ? `execution:${executionId}` : `job:${jobId.replace(/_resume_\d+$/, '')}`;
}

export function workflowJobId(executionId: number, resumeCount = 0): string {
  return resumeCount > 0 ? `wf_${executionId}_resume_${resumeCount}` : `wf_${executionId}`;
}

/** Error types recorded on failed steps and executions (analytics group by them). */
export const ERROR_TYPES = [
  'timeout',
  'validation_error',
  'llm_error',
  'http_error',
  'configuration_error',
  'network_error',
  'deadline_exceeded',
  'policy_violation',
  'not_available',
  'internal_error',
  /** The public API created the execution but its start was refused (router or broker down, running limit). */
  'not_started',
] as const;
export type ErrorType = (typeof ERROR_TYPES)[number];

/**
 * `POST /api/workflow-executions/internal/{execution_id}/node-credential` (service JWT): the workflow
 * processor asks for the fields of the credential a node names when the node runs (spec 2.7 rule 3);
 * jobs carry only the credential id. Answered for the execution's current job while it runs.
 */
export class NodeCredentialRequest {
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  job_id!: string;

  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  node_id!: string;
}

export interface NodeCredentialResponse {
  data: { credential_id: number; fields: Record<string, string> };
}

export function nodeCredentialPath(executionId: number): string {
  return `/api/workflow-executions/internal/${executionId}/node-credential`;
}
