import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

export const SCHEDULE_STATUSES = ['success', 'failed', 'running', 'queued', 'never_run'] as const;
export type ScheduleStatus = (typeof SCHEDULE_STATUSES)[number];

@Entity({ name: 'workflow_schedules' })
export class ScheduleEntity {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id!: number;

  @Column({ name: 'owner_id', type: 'integer' })
  ownerId!: number;

  @Column({ name: 'activity_id', type: 'integer' })
  activityId!: number;

  @Column({ type: 'varchar', length: 255 })
  name!: string;

  @Column({ name: 'cron_expression', type: 'varchar', length: 120 })
  cronExpression!: string;

  @Column({ type: 'varchar', length: 64 })
  timezone!: string;

  @Column({ name: 'is_active', type: 'boolean' })
  isActive!: boolean;

  @Column({ name: 'skip_if_running', type: 'boolean' })
  skipIfRunning!: boolean;

  @Column({ type: 'jsonb' })
  inputs!: Record<string, unknown>;

  @Column({ name: 'last_run_at', type: 'timestamptz', nullable: true })
  lastRunAt!: Date | null;

  @Column({ name: 'next_run_at', type: 'timestamptz', nullable: true })
  nextRunAt!: Date | null;

  @Column({ name: 'last_status', type: 'varchar', length: 20 })
  lastStatus!: ScheduleStatus;

  @Column({ name: 'last_execution_id', type: 'integer', nullable: true })
  lastExecutionId!: number | null;

  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError!: string | null;

  @Column({ name: 'run_count', type: 'integer' })
  runCount!: number;

  @Column({ name: 'failure_count', type: 'integer' })
  failureCount!: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
