import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

@Entity({ name: 'webhooks' })
export class WebhookEntity {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id!: number;

  @Column({ name: 'owner_id', type: 'integer' })
  ownerId!: number;

  @Column({ name: 'activity_id', type: 'integer' })
  activityId!: number;

  @Column({ type: 'varchar', length: 255 })
  name!: string;

  /** SHA-256 (hex) of the secret; the secret itself is shown once, on create and on regenerate. */
  @Column({ name: 'secret_hash', type: 'char', length: 64 })
  secretHash!: string;

  @Column({ name: 'previous_secret_hash', type: 'char', length: 64, nullable: true })
  previousSecretHash!: string | null;

  @Column({ name: 'previous_secret_expires_at', type: 'timestamptz', nullable: true })
  previousSecretExpiresAt!: Date | null;

  @Column({ type: 'boolean' })
  active!: boolean;

  @Column({ name: 'event_type', type: 'varchar', length: 100, nullable: true })
  eventType!: string | null;

  @Column({ name: 'accept_files', type: 'boolean' })
  acceptFiles!: boolean;

  @Column({ name: 'max_file_size_mb', type: 'integer' })
  maxFileSizeMb!: number;

  @Column({ name: 'allowed_mime_types', type: 'jsonb' })
  allowedMimeTypes!: string[];

  @Column({ name: 'auto_enable_rag', type: 'boolean' })
  autoEnableRag!: boolean;

  @Column({ name: 'allowed_origins', type: 'jsonb' })
  allowedOrigins!: string[];

  @Column({ name: 'trigger_count', type: 'integer' })
  triggerCount!: number;

  @Column({ name: 'last_triggered_at', type: 'timestamptz', nullable: true })
  lastTriggeredAt!: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
