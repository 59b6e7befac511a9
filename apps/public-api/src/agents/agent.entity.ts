import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

@Entity({ name: 'agents' })
export class AgentEntity {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id!: number;

  /** Null for system agents (the Composer). */
  @Column({ name: 'owner_id', type: 'integer', nullable: true })
  ownerId!: number | null;

  @Column({ type: 'varchar', length: 255 })
  name!: string;

  @Column({ type: 'varchar', length: 100 })
  slug!: string;

  @Column({ type: 'text', nullable: true })
  goal!: string | null;

  @Column({ type: 'text', nullable: true })
  description!: string | null;

  @Column({ name: 'available_tools', type: 'jsonb' })
  availableTools!: string[];

  @Column({ type: 'varchar', length: 50 })
  model!: string;

  @Column({ name: 'max_iterations', type: 'integer' })
  maxIterations!: number;

  @Column({ type: 'real' })
  temperature!: number;

  @Column({ name: 'prompt_title', type: 'varchar', length: 255, nullable: true })
  promptTitle!: string | null;

  @Column({ type: 'boolean' })
  conversational!: boolean;

  @Column({ type: 'jsonb' })
  branding!: Record<string, unknown>;

  @Column({ name: 'welcome_message', type: 'text', nullable: true })
  welcomeMessage!: string | null;

  @Column({ name: 'mcp_servers', type: 'jsonb' })
  mcpServers!: Record<string, unknown>[];

  @Column({ type: 'boolean' })
  active!: boolean;

  @Column({ name: 'api_key_hash', type: 'char', length: 64, nullable: true })
  apiKeyHash!: string | null;

  /** The owner's collection whose documents the agent's key holders may list and search (none: no documents). */
  @Column({ name: 'public_collection_id', type: 'integer', nullable: true })
  publicCollectionId!: number | null;

  /** Sites whose pages may call the public chat (CORS, issue 18); empty: any (as a chatbot's, spec 2.12). */
  @Column({ name: 'allowed_origins', type: 'jsonb', default: () => "'[]'" })
  allowedOrigins!: string[];

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
