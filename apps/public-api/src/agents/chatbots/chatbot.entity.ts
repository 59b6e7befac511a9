import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

@Entity({ name: 'chatbots' })
export class ChatbotEntity {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id!: number;

  @Column({ name: 'owner_id', type: 'integer' })
  ownerId!: number;

  @Column({ type: 'varchar', length: 255 })
  name!: string;

  @Column({ type: 'varchar', length: 100 })
  slug!: string;

  @Column({ type: 'boolean' })
  active!: boolean;

  /** SHA-256 (hex) of the key; the key itself is shown on create and on regenerate only. */
  @Column({ name: 'api_key_hash', type: 'char', length: 64 })
  apiKeyHash!: string;

  @Column({ name: 'welcome_message', type: 'text', nullable: true })
  welcomeMessage!: string | null;

  @Column({ type: 'jsonb' })
  branding!: Record<string, unknown>;

  @Column({ name: 'allowed_origins', type: 'jsonb' })
  allowedOrigins!: string[];

  @Column({ name: 'rate_limit', type: 'integer' })
  rateLimit!: number;

  @Column({ name: 'query_count', type: 'integer' })
  queryCount!: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
