import { Column, Entity, PrimaryColumn } from 'typeorm';

export const NODE_RUN_STATUSES = ['completed', 'failed', 'awaiting_input'] as const;
export type NodeRunStatus = (typeof NODE_RUN_STATUSES)[number];

/**
 * One checkpoint: a task node of one execution that completed, failed, or
 * paused for user input. `correlation_token` is set only while awaiting input;
 * it is a secret and is never logged.
 */
@Entity({ name: 'workflow_node_runs' })
export class WorkflowNodeRunEntity {
  @PrimaryColumn({ name: 'execution_key', type: 'text' })
  executionKey!: string;

  @PrimaryColumn({ name: 'node_id', type: 'text' })
  nodeId!: string;

  @Column({ name: 'job_id', type: 'text' })
  jobId!: string;

  @Column({ name: 'task_type', type: 'text' })
  taskType!: string;

  @Column({ type: 'text' })
  status!: NodeRunStatus;

  @Column({ type: 'jsonb', nullable: true })
  output!: unknown;

  @Column({ type: 'text', nullable: true })
  error!: string | null;

  @Column({ name: 'error_type', type: 'text', nullable: true })
  errorType!: string | null;

  @Column({ name: 'correlation_token', type: 'text', nullable: true })
  correlationToken!: string | null;

  @Column({ name: 'started_at', type: 'timestamptz' })
  startedAt!: Date;

  @Column({ name: 'completed_at', type: 'timestamptz', nullable: true })
  completedAt!: Date | null;

  @Column({ type: 'double precision', nullable: true })
  cost!: number | null;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
