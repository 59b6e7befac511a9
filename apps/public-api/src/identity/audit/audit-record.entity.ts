import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** One audited action (spec 2.19); written by AuditLog, never changed. */
@Entity({ name: 'audit_log' })
export class AuditRecordEntity {
  /** bigserial: pg returns it as a string. */
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: string;

  @Column({ type: 'varchar', length: 100 })
  action!: string;

  @Column({ name: 'actor_user_id', type: 'integer', nullable: true })
  actorUserId!: number | null;

  @Column({ type: 'varchar', length: 100, nullable: true })
  tenant!: string | null;

  @Column({ name: 'correlation_id', type: 'varchar', length: 128, nullable: true })
  correlationId!: string | null;

  @Column({ type: 'jsonb' })
  details!: Record<string, unknown>;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'retain_until', type: 'timestamptz' })
  retainUntil!: Date;
}
