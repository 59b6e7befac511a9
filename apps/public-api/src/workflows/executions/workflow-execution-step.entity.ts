import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { TaskStatus } from '@docflow/contracts';
import { numericTransformer } from './workflow-execution.entity';

/**
 * One node of one execution, as last reported by the processor: the source of
 * the timeline (4.8) and of per-step analytics (4.7). Unique per (execution, node).
 */
@Entity({ name: 'workflow_execution_steps' })
export class WorkflowExecutionStepEntity {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id!: number;

  @Column({ name: 'execution_id', type: 'integer' })
  executionId!: number;

  @Column({ name: 'node_id', type: 'varchar', length: 255 })
  nodeId!: string;

  /** The node's label, or its id when it has none. */
  @Column({ name: 'step_name', type: 'varchar', length: 255 })
  stepName!: string;

  /** The node's task type (`rest_api_task`, `decision`, ...). */
  @Column({ name: 'step_type', type: 'varchar', length: 100, nullable: true })
  stepType!: string | null;

  @Column({ type: 'varchar', length: 20 })
  status!: TaskStatus;

  @Column({ name: 'started_at', type: 'timestamptz', nullable: true })
  startedAt!: Date | null;

  @Column({ name: 'completed_at', type: 'timestamptz', nullable: true })
  completedAt!: Date | null;

  @Column({ name: 'duration_seconds', type: 'numeric', precision: 14, scale: 3, nullable: true, transformer: numericTransformer })
  durationSeconds!: number | null;

  @Column({ type: 'numeric', precision: 14, scale: 6, nullable: true, transformer: numericTransformer })
  cost!: number | null;

  /** At most 500 characters of the node's result (text, or JSON). */
  @Column({ name: 'result_summary', type: 'text', nullable: true })
  resultSummary!: string | null;

  @Column({ type: 'text', nullable: true })
  error!: string | null;

  @Column({ name: 'error_type', type: 'varchar', length: 50, nullable: true })
  errorType!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
