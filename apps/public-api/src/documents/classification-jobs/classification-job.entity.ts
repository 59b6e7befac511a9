import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import type { ExtractionJobType } from './classification-jobs.dto';

/** Who submitted which extraction-queue job (spec 4.5), so that only its owner reads its status. */
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
}
