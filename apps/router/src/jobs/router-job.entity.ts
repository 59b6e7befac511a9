import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { JobStatus, JobType, QueueName } from '@docflow/contracts';

/** One job submitted to the router (spec 4.16). No caller token is kept (issue #13). */
@Entity({ name: 'router_jobs' })
export class RouterJobEntity {
  @PrimaryColumn({ name: 'job_id', type: 'text' })
  jobId!: string;

  @Column({ name: 'job_type', type: 'text' })
  jobType!: JobType;

  @Column({ type: 'text' })
  queue!: QueueName;

  @Column({ type: 'text' })
  status!: JobStatus;

  @Column({ type: 'jsonb', nullable: true })
  result!: Record<string, unknown> | null;

  @Column({ type: 'text', nullable: true })
  error!: string | null;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;

  @Column({ name: 'completed_at', type: 'timestamptz', nullable: true })
  completedAt!: Date | null;
}
