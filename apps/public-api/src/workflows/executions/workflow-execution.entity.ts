import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn, ValueTransformer } from 'typeorm';
import type { TaskState } from '@docflow/contracts';
import type { ExecutionStatus } from './execution-status';

/** PostgreSQL `numeric` and `bigint` arrive as strings; costs, durations and sequences are served as numbers. */
export const numericTransformer: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | number | null) => (value === null || value === undefined ? null : Number(value)),
};

/** One run of a workflow (spec 2.9, 3.1). */
@Entity({ name: 'workflow_executions' })
export class WorkflowExecutionEntity {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id!: number;

  @Column({ name: 'activity_id', type: 'integer' })
  activityId!: number;

  /** The owner: who created the execution. */
  @Column({ name: 'user_id', type: 'integer' })
  userId!: number;

  @Column({ type: 'varchar', length: 30 })
  status!: ExecutionStatus;

  /** The normalised snapshot the run uses. */
  @Column({ name: 'workflow_definition', type: 'jsonb' })
  workflowDefinition!: Record<string, unknown>;

  @Column({ type: 'jsonb' })
  inputs!: Record<string, unknown>;

  /** Map of node id to node output. */
  @Column({ type: 'jsonb', nullable: true })
  outputs!: Record<string, unknown> | null;

  /** The outputs once completed (what webhook polling reads). */
  @Column({ type: 'jsonb', nullable: true })
  results!: Record<string, unknown> | null;

  @Column({ name: 'task_states', type: 'jsonb' })
  taskStates!: Record<string, TaskState>;

  @Column({ type: 'text', nullable: true })
  error!: string | null;

  @Column({ name: 'error_type', type: 'varchar', length: 50, nullable: true })
  errorType!: string | null;

  @Column({ name: 'failed_node', type: 'varchar', length: 255, nullable: true })
  failedNode!: string | null;

  @Column({ name: 'awaiting_node', type: 'varchar', length: 255, nullable: true })
  awaitingNode!: string | null;

  @Column({ name: 'awaiting_input_schema', type: 'jsonb', nullable: true })
  awaitingInputSchema!: Record<string, unknown> | null;

  /** SHA-256 (hex) of the correlation token while awaiting input. */
  @Column({ name: 'correlation_token_hash', type: 'char', length: 64, nullable: true })
  correlationTokenHash!: string | null;

  /** The token sealed with AES-256-GCM (see correlation-token.ts), for GET /status. */
  @Column({ name: 'correlation_token_sealed', type: 'text', nullable: true })
  correlationTokenSealed!: string | null;

  @Column({ name: 'awaiting_since', type: 'timestamptz', nullable: true })
  awaitingSince!: Date | null;

  /** The router job currently running the execution. */
  @Column({ name: 'job_id', type: 'varchar', length: 200, nullable: true })
  jobId!: string | null;

  @Column({ name: 'resume_count', type: 'integer' })
  resumeCount!: number;

  /** What the latest resume's job carries besides the row (the waiting node and the user's payload), for its resubmission. */
  @Column({ name: 'resume_job', type: 'jsonb', nullable: true })
  resumeJob!: { node_id: string; payload: Record<string, unknown> } | null;

  /** When the latest resume was made: its last_progress_at until the job reports (the resubmission sweep compares them). */
  @Column({ name: 'resumed_at', type: 'timestamptz', nullable: true })
  resumedAt!: Date | null;

  /** Highest `sequence` applied from the current job (bigint arrives as a string). */
  @Column({ name: 'last_sequence', type: 'bigint', nullable: true, transformer: numericTransformer })
  lastSequence!: number | null;

  /** Absolute deadline from the activity's execution_deadline_seconds, set when started. */
  @Column({ name: 'deadline_at', type: 'timestamptz', nullable: true })
  deadlineAt!: Date | null;

  @Column({ name: 'started_at', type: 'timestamptz', nullable: true })
  startedAt!: Date | null;

  @Column({ name: 'completed_at', type: 'timestamptz', nullable: true })
  completedAt!: Date | null;

  @Column({ name: 'last_progress_at', type: 'timestamptz', nullable: true })
  lastProgressAt!: Date | null;

  /** The failed execution this one retries (POST /workflow-executions/{id}/retry). */
  @Column({ name: 'retry_of', type: 'integer', nullable: true })
  retryOf!: number | null;

  @Column({ name: 'total_cost', type: 'numeric', precision: 14, scale: 6, transformer: numericTransformer })
  totalCost!: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
