import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

export const SOURCE_TYPES = ['cloud_drive', 'webhook', 'email', 'slack'] as const;
export type SourceType = (typeof SOURCE_TYPES)[number];

/** Spec 3.6: an entry is `received`, then `processing`, then `processed`, `ignored` or `failed`. */
export const EVENT_LOG_STATUSES = ['received', 'processing', 'processed', 'ignored', 'failed'] as const;
export type EventLogStatus = (typeof EVENT_LOG_STATUSES)[number];

/** An event source (spec 2.16). `watch_channel_token` is a secret: it never leaves the service. */
@Entity({ name: 'event_sources' })
export class EventSourceEntity {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id!: number;

  @Column({ name: 'owner_id', type: 'integer' })
  ownerId!: number;

  @Column({ type: 'varchar', length: 255 })
  name!: string;

  @Column({ name: 'source_type', type: 'varchar', length: 20 })
  sourceType!: SourceType;

  @Column({ type: 'jsonb' })
  config!: Record<string, unknown>;

  @Column({ name: 'drive_item_id', type: 'text', nullable: true })
  driveItemId!: string | null;

  @Column({ name: 'drive_item_type', type: 'varchar', length: 10, nullable: true })
  driveItemType!: 'file' | 'folder' | null;

  @Column({ name: 'drive_item_name', type: 'text', nullable: true })
  driveItemName!: string | null;

  @Column({ name: 'watch_channel_id', type: 'varchar', length: 100, nullable: true })
  watchChannelId!: string | null;

  @Column({ name: 'watch_channel_token', type: 'varchar', length: 100, nullable: true })
  watchChannelToken!: string | null;

  @Column({ name: 'watch_resource_id', type: 'text', nullable: true })
  watchResourceId!: string | null;

  @Column({ name: 'watch_expiry', type: 'timestamptz', nullable: true })
  watchExpiry!: Date | null;

  @Column({ name: 'page_token', type: 'text', nullable: true })
  pageToken!: string | null;

  @Column({ name: 'is_active', type: 'boolean' })
  isActive!: boolean;

  @Column({ name: 'last_event_at', type: 'timestamptz', nullable: true })
  lastEventAt!: Date | null;

  @Column({ name: 'event_count', type: 'integer' })
  eventCount!: number;

  @Column({ name: 'error_message', type: 'text', nullable: true })
  errorMessage!: string | null;

  /** A drive outage: the changes are read again from the saved page token after this time. */
  @Column({ name: 'read_after', type: 'timestamptz', nullable: true })
  readAfter!: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}

/** An event subscription (spec 2.17). */
@Entity({ name: 'event_subscriptions' })
export class EventSubscriptionEntity {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id!: number;

  @Column({ name: 'owner_id', type: 'integer' })
  ownerId!: number;

  @Column({ name: 'event_source_id', type: 'integer' })
  eventSourceId!: number;

  @Column({ name: 'activity_id', type: 'integer' })
  activityId!: number;

  @Column({ type: 'varchar', length: 255 })
  name!: string;

  @Column({ name: 'event_types', type: 'jsonb' })
  eventTypes!: string[];

  @Column({ type: 'jsonb' })
  filter!: Record<string, unknown>;

  @Column({ name: 'input_mapping', type: 'jsonb' })
  inputMapping!: Record<string, unknown>;

  @Column({ name: 'is_active', type: 'boolean' })
  isActive!: boolean;

  @Column({ name: 'trigger_count', type: 'integer' })
  triggerCount!: number;

  @Column({ name: 'last_triggered_at', type: 'timestamptz', nullable: true })
  lastTriggeredAt!: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}

/** One workflow an event started. */
export interface TriggeredWorkflow {
  subscription_id: number;
  execution_id: number;
}

/** An event log entry (spec 4.10, 6). */
@Entity({ name: 'event_logs' })
export class EventLogEntity {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id!: number;

  @Column({ name: 'event_id', type: 'varchar', length: 100 })
  eventId!: string;

  @Column({ name: 'owner_id', type: 'integer' })
  ownerId!: number;

  @Column({ name: 'event_source_id', type: 'integer' })
  eventSourceId!: number;

  @Column({ name: 'source_type', type: 'varchar', length: 20 })
  sourceType!: SourceType;

  @Column({ name: 'event_type', type: 'varchar', length: 40 })
  eventType!: string;

  /** What filters are matched against (the drive file's fields, or the message's). */
  @Column({ type: 'jsonb' })
  payload!: Record<string, unknown>;

  @Column({ type: 'varchar', length: 12 })
  status!: EventLogStatus;

  @Column({ name: 'subscriptions_matched', type: 'integer' })
  subscriptionsMatched!: number;

  @Column({ name: 'workflows_triggered', type: 'jsonb' })
  workflowsTriggered!: TriggeredWorkflow[];

  @Column({ name: 'error_message', type: 'text', nullable: true })
  errorMessage!: string | null;

  @Column({ type: 'integer' })
  attempts!: number;

  @Column({ name: 'lease_until', type: 'timestamptz', nullable: true })
  leaseUntil!: Date | null;

  @Column({ name: 'received_at', type: 'timestamptz' })
  receivedAt!: Date;

  @Column({ name: 'processed_at', type: 'timestamptz', nullable: true })
  processedAt!: Date | null;
}
