import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import type { JobStatus } from '@docflow/contracts';
import type { ExtractionJobType } from './classification-jobs.dto';

/**
 * Who submitted which extraction-queue job (spec 4.5), so that only its owner
 * reads its status, and the job's outcome as the results consumer wrote it.
 */
@Entity({ name: 'classification_jobs' })
export class ClassificationJobEntity {
  @PrimaryColumn({ name: 'job_id', type: 'varchar', length: 200 })
  jobId!: string;

  @Column({ name: 'user_id', type: 'integer' })
  userId!: number;

  @Column({ name: 'collection_id', type: 'integer' })
  collectionId!: number;

  @Column({ name: 'job_type', type: 'varchar', length: 30 })
  jobType!: ExtractionJobType;

  @Column({ name: 'document_ids', type: 'jsonb', default: () => "'[]'" })
  documentIds!: number[];

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ type: 'varchar', length: 30, default: 'queued' })
  status!: JobStatus;

  /** The processor's `outputs` of the latest applied result. */
  @Column({ type: 'jsonb', nullable: true })
  outputs!: Record<string, unknown> | null;

  @Column({ type: 'text', nullable: true })
  error!: string | null;

  @Column({ name: 'last_sequence', type: 'bigint', nullable: true })
  lastSequence!: string | null;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt!: Date;

  @Column({ name: 'completed_at', type: 'timestamptz', nullable: true })
  completedAt!: Date | null;
}
