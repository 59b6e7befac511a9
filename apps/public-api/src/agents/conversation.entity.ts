import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { EscalationStatus } from './escalation/escalation-states';

@Entity({ name: 'agent_conversations' })
export class ConversationEntity {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id!: number;

  @Column({ name: 'session_id', type: 'varchar', length: 64 })
  sessionId!: string;

  @Column({ name: 'owner_id', type: 'integer' })
  ownerId!: number;

  @Column({ name: 'agent_id', type: 'integer', nullable: true })
  agentId!: number | null;

  /** The SHA-256 of the agent key a public chat created it with; only that key may use it. Never shown. */
  @Column({ name: 'api_key_hash', type: 'char', length: 64, nullable: true })
  apiKeyHash!: string | null;

  @Column({ type: 'varchar', length: 255, nullable: true })
  title!: string | null;

  @Column({ name: 'agent_config', type: 'jsonb' })
  agentConfig!: Record<string, unknown>;

  @Column({ type: 'boolean' })
  active!: boolean;

  @Column({ name: 'message_count', type: 'integer' })
  messageCount!: number;

  @Column({ name: 'escalation_status', type: 'varchar', length: 50, default: 'none' })
  escalationStatus!: EscalationStatus;

  @Column({ name: 'escalation_updated_at', type: 'timestamptz', nullable: true })
  escalationUpdatedAt!: Date | null;

  @Column({ name: 'escalation_reason', type: 'text', nullable: true })
  escalationReason!: string | null;

  @Column({ name: 'assigned_agent', type: 'varchar', length: 255, nullable: true })
  assignedAgent!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}

@Entity({ name: 'agent_messages' })
export class AgentMessageEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: string;

  @Column({ name: 'conversation_id', type: 'integer' })
  conversationId!: number;

  @Column({ type: 'varchar', length: 16 })
  role!: 'user' | 'assistant' | 'system';

  @Column({ type: 'text' })
  content!: string;

  @Column({ type: 'jsonb' })
  metadata!: Record<string, unknown>;

  @Column({ type: 'jsonb', nullable: true })
  attachments!: Record<string, unknown>[] | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
