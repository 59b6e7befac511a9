import { Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { PromptLevel, PromptType, RtioOutputFormat, RtioRole } from '@docflow/rtio';
import { UserEntity } from '../../identity';

/** A prompt (spec 2.4). */
@Entity({ name: 'prompts' })
export class PromptEntity {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id!: number;

  @Column({ type: 'varchar', length: 255 })
  title!: string;

  @Column({ type: 'varchar', length: 20 })
  type!: PromptType;

  @Column({ type: 'varchar', length: 10 })
  level!: PromptLevel;

  @Column({ type: 'varchar', length: 255, nullable: true })
  section!: string | null;

  @Column({ type: 'text', nullable: true })
  description!: string | null;

  @Column({ type: 'jsonb', default: () => "'[]'" })
  roles!: RtioRole[];

  @Column({ type: 'jsonb', default: () => "'[]'" })
  tasks!: string[];

  @Column({ type: 'jsonb', default: () => "'[]'" })
  instructions!: string[];

  @Column({ name: 'output_format', type: 'varchar', length: 10, default: 'json' })
  outputFormat!: RtioOutputFormat;

  @Column({ name: 'example_output', type: 'jsonb', nullable: true })
  exampleOutput!: Record<string, unknown> | null;

  @Column({ type: 'varchar', length: 50, default: '1.0.0' })
  version!: string;

  /** Null for ownerless system prompts (the seeded ones). */
  @Column({ name: 'owner_id', type: 'integer', nullable: true })
  ownerId!: number | null;

  @ManyToOne(() => UserEntity, { nullable: true, onDelete: 'CASCADE' })
  @JoinColumn({ name: 'owner_id' })
  owner?: UserEntity | null;

  /** When the template last passed the linter or an administrator's override (issue 18); null: not published, or edited since. */
  @Column({ name: 'published_at', type: 'timestamptz', nullable: true })
  publishedAt!: Date | null;

  @Column({ name: 'published_by', type: 'integer', nullable: true })
  publishedBy!: number | null;

  @Column({ name: 'published_version', type: 'varchar', length: 50, nullable: true })
  publishedVersion!: string | null;

  /** The administrator's reason when the linter's errors were overridden. */
  @Column({ name: 'publish_override_reason', type: 'text', nullable: true })
  publishOverrideReason!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
