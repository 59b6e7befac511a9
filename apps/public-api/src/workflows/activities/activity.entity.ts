import { Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import { UserEntity } from '../../identity';
import type { ActivityLevel, ActivityStatus } from './activity-vocabulary';

/** A workflow (spec 2.5). */
@Entity({ name: 'activities' })
export class ActivityEntity {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id!: number;

  @Column({ type: 'varchar', length: 255 })
  name!: string;

  @Column({ type: 'text', nullable: true })
  description!: string | null;

  @Column({ name: 'workflow_type', type: 'varchar', length: 50 })
  workflowType!: string;

  @Column({ type: 'varchar', length: 20 })
  status!: ActivityStatus;

  @Column({ type: 'varchar', length: 20 })
  level!: ActivityLevel;

  /** Null for ownerless system items. */
  @Column({ name: 'owner_id', type: 'integer', nullable: true })
  ownerId!: number | null;

  @ManyToOne(() => UserEntity, { nullable: true, onDelete: 'CASCADE' })
  @JoinColumn({ name: 'owner_id' })
  owner?: UserEntity | null;

  @Column({ name: 'workflow_definition', type: 'jsonb' })
  workflowDefinition!: Record<string, unknown>;

  @Column({ name: 'execution_deadline_seconds', type: 'integer', nullable: true })
  executionDeadlineSeconds!: number | null;

  @Column({ name: 'data_shield_policy', type: 'jsonb', nullable: true })
  dataShieldPolicy!: Record<string, unknown> | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
