import { type ConnectStart, type DriveProvider, isDriveError } from '@docflow/cloud-drive';
import { AppError, BadRequestError, type Logger, NotFoundError, ServiceUnavailableError, errorMessage } from '@docflow/service-kit';
import type { ActivitiesRepository } from '../activities/activities.repository';
import { ACTIVITY_NOT_FOUND, type Caller } from '../activities/activities.service';
import type { AuditLog } from '../../identity';
import type { CreateSourceInput, CreateSubscriptionInput } from './event-bus.dto';
import type { EventLogEntity, EventSourceEntity, EventSubscriptionEntity } from './event-bus.entity';
import type { EventLogsRepository } from './event-logs.repository';
import type { EventSourcesRepository } from './event-sources.repository';
import type { EventSubscriptionsRepository, SubscriptionSettings } from './event-subscriptions.repository';
import type { DriveWatching } from './drive-watching';

export const SOURCE_NOT_FOUND = 'Event source not found';
export const SUBSCRIPTION_NOT_FOUND = 'Event subscription not found';
const NOT_PUBLIC_MESSAGE = 'Push notifications need a public HTTPS address (PUBLIC_BASE_URL); POST /event-bus/sources/{id}/activate once it is set';

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

/** An event source as its owner sees it (spec 2.16); the channel token never leaves the service. */
export function sourceView(s: EventSourceEntity) {
  return {
    id: s.id,
    name: s.name,
    source_type: s.sourceType,
    config: s.config,
    drive_item_id: s.driveItemId,
    drive_item_type: s.driveItemType,
    drive_item_name: s.driveItemName,
    watch_channel_id: s.watchChannelId,
    watch_resource_id: s.watchResourceId,
    watch_expiry: iso(s.watchExpiry),
    page_token: s.pageToken,
    is_active: s.isActive,
    last_event_at: iso(s.lastEventAt),
    event_count: s.eventCount,
    error_message: s.errorMessage,
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
  };
}
export type SourceView = ReturnType<typeof sourceView>;

export function subscriptionView(s: EventSubscriptionEntity) {
  return {
    id: s.id,
    name: s.name,
    event_source: { id: s.eventSourceId },
    activity: { id: s.activityId },
    event_types: s.eventTypes,
    filter: s.filter,
    input_mapping: s.inputMapping,
    is_active: s.isActive,
    trigger_count: s.triggerCount,
    last_triggered_at: iso(s.lastTriggeredAt),
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
  };
}
export type SubscriptionView = ReturnType<typeof subscriptionView>;

export function logView(l: EventLogEntity, driveItemName: string | null) {
  return {
    id: l.id,
    event_id: l.eventId,
    source_type: l.sourceType,
    event_type: l.eventType,
    event_source: { id: l.eventSourceId, drive_item_name: driveItemName },
    payload: l.payload,
    subscriptions_matched: l.subscriptionsMatched,
    workflows_triggered: l.workflowsTriggered,
    status: l.status,
    received_at: l.receivedAt.toISOString(),
    processed_at: iso(l.processedAt),
    error_message: l.errorMessage,
  };
}
export type LogView = ReturnType<typeof logView>;

/** The e-mail side of sources (email-sources.ts); absent, e-mail sources are refused. */
export interface EmailSources {
  /** Checks the credential and opens the mailboxes; rejects with a 400 when the login or a mailbox is refused. */
  create(owner: Caller, input: Extract<CreateSourceInput, { kind: 'email' }>): Promise<EventSourceEntity>;
  activate(source: EventSourceEntity): Promise<void>;
  stop(sourceId: number): Promise<void>;
}

export interface EventBusServiceDeps {
  sources: EventSourcesRepository;
  subscriptions: EventSubscriptionsRepository;
  logs: EventLogsRepository;
  activities: ActivitiesRepository;
  provider: DriveProvider;
  watching: DriveWatching;
  email?: EmailSources;
  audit: AuditLog;
  logger: Logger;
}

/** A drive error on a user's request, as the HTTP answer it deserves. */
export function driveRequestError(err: unknown): unknown {
  if (!isDriveError(err)) return err;
  switch (err.kind) {
    case 'invalid_path':
    case 'unsupported':
    case 'not_found':
    case 'oauth':
      return BadRequestError.withErrors(err.message, [err.message]);
    case 'needs_reconnect':
      return BadRequestError.withErrors('Connect your cloud drive again (GET /cloud/oauth/connect)', [err.message]);
    case 'retryable':
    case 'protocol':
    case 'page_token_expired':
      return new ServiceUnavailableError('The cloud drive is unavailable; retry later', { reason: err.message });
  }
}

async function asRequest<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    throw driveRequestError(err);
  }
}

/** Event sources, subscriptions, the event log and the drive grant (spec 2.16, 2.17, 4.10). Everything is the owner's alone: others get 404. */
export class EventBusService {
  constructor(private readonly deps: EventBusServiceDeps) {}

  async oauthStatus(userId: number): Promise<{ connected: boolean; needs_reconnect: boolean; provider: string }> {
    const status = await this.deps.provider.grantStatus(userId);
    return { connected: status.connected, needs_reconnect: status.needsReconnect, provider: this.deps.provider.kind };
  }

  connect(userId: number, redirectUri: string): Promise<ConnectStart> {
    return asRequest(this.deps.provider.beginConnect(userId, redirectUri));
  }

  async completeConnect(userId: number, code: string, state: string): Promise<void> {
    await asRequest(this.deps.provider.completeConnect(userId, { code, state }));
    this.deps.audit.record({ action: 'cloud_drive.connected', actorUserId: userId, details: { provider: this.deps.provider.kind } });
  }

  /** Forgets the grant; the owner's drive sources go inactive (spec 3.6). */
  async disconnect(userId: number): Promise<void> {
    await asRequest(this.deps.provider.disconnect(userId));
    if (this.deps.provider.kind !== 'local') await this.deps.watching.reconnectNeeded(userId, 'The cloud drive was disconnected; connect it again and activate the source');
    this.deps.audit.record({ action: 'cloud_drive.disconnected', actorUserId: userId, details: { provider: this.deps.provider.kind } });
  }

  async createSource(owner: Caller, input: CreateSourceInput): Promise<SourceView> {
    if (input.kind === 'email') {
      if (!this.deps.email) throw BadRequestError.withErrors('E-mail sources are not available here', ['source_type email is not available']);
      return sourceView(await this.deps.email.create(owner, input));
    }
    const { provider, sources, watching } = this.deps;
    const status = await provider.grantStatus(owner.id);
    if (!status.connected)
      throw BadRequestError.withErrors('Connect your cloud drive first', [`the cloud drive is ${status.needsReconnect ? 'to be connected again' : 'not connected'}: GET /cloud/oauth/connect`]);
    const folder = await asRequest(provider.prepareFolder(owner.id, input.folderId));
    const pageToken = await asRequest(provider.getStartPageToken(owner.id, folder.id));
    const active = watching.canWatchOnCreate;
    const folderName = input.folderName ?? folder.name;
    const source = await sources.insert({
      ownerId: owner.id,
      name: input.name ?? folderName,
      sourceType: 'cloud_drive',
      config: {},
      driveItemId: folder.id,
      driveItemType: 'folder',
      driveItemName: folderName,
      pageToken,
      isActive: active,
      errorMessage: active ? null : NOT_PUBLIC_MESSAGE,
    });
    if (active) await this.watchOrDeactivate(source);
    this.deps.audit.record({ action: 'event_source.created', actorUserId: owner.id, details: { source_id: source.id, source_type: 'cloud_drive' } });
    return sourceView(await this.owned(owner.id, source.id));
  }

  /** Spec 4.10: registers the push channel (a new one) and makes the source active. */
  async activate(ownerId: number, id: number): Promise<{ is_active: boolean; error_message: string | null; watch_expiry: string | null }> {
    const source = await this.owned(ownerId, id);
    if (source.sourceType === 'email') {
      if (!this.deps.email) throw BadRequestError.withErrors('E-mail sources are not available here', ['source_type email is not available']);
      await this.deps.email.activate(source);
    } else {
      const status = await this.deps.provider.grantStatus(ownerId);
      if (!status.connected) throw BadRequestError.withErrors('Connect your cloud drive first', ['the cloud drive is not connected: GET /cloud/oauth/connect']);
      if (!source.pageToken && source.driveItemId) await this.deps.sources.savePageToken(source.id, await asRequest(this.deps.provider.getStartPageToken(ownerId, source.driveItemId)));
      await asRequest(this.deps.watching.openWatch(await this.owned(ownerId, id)));
    }
    const after = await this.owned(ownerId, id);
    return { is_active: after.isActive, error_message: after.errorMessage, watch_expiry: iso(after.watchExpiry) };
  }

  async listSources(ownerId: number): Promise<SourceView[]> {
    return (await this.deps.sources.listOwned(ownerId)).map(sourceView);
  }

  async getSource(ownerId: number, id: number): Promise<SourceView> {
    return sourceView(await this.owned(ownerId, id));
  }

  async deleteSource(ownerId: number, id: number): Promise<{ id: number }> {
    const source = await this.owned(ownerId, id);
    if (source.sourceType === 'email') await this.deps.email?.stop(id);
    else await this.deps.watching.stop(source);
    if (!(await this.deps.sources.delete(id, ownerId))) throw new NotFoundError(SOURCE_NOT_FOUND);
    this.deps.audit.record({ action: 'event_source.deleted', actorUserId: ownerId, details: { source_id: id } });
    return { id };
  }

  /** A subscription may bind only the owner's own source and an activity the owner owns (spec 4.10 ownership). */
  async createSubscription(owner: Caller, input: CreateSubscriptionInput): Promise<SubscriptionView> {
    await this.owned(owner.id, input.sourceId);
    const activity = await this.deps.activities.findById(input.activityId);
    if (!activity || activity.ownerId !== owner.id) throw new NotFoundError(ACTIVITY_NOT_FOUND);
    const created = await this.deps.subscriptions.insert({ ...input, ownerId: owner.id, eventSourceId: input.sourceId });
    return subscriptionView(created);
  }

  async listSubscriptions(ownerId: number, sourceId?: number): Promise<SubscriptionView[]> {
    return (await this.deps.subscriptions.listOwned(ownerId, sourceId)).map(subscriptionView);
  }

  async getSubscription(ownerId: number, id: number): Promise<SubscriptionView> {
    const s = await this.deps.subscriptions.findOwned(id, ownerId);
    if (!s) throw new NotFoundError(SUBSCRIPTION_NOT_FOUND);
    return subscriptionView(s);
  }

  async updateSubscription(ownerId: number, id: number, settings: Partial<SubscriptionSettings>): Promise<SubscriptionView> {
    const s = await this.deps.subscriptions.update(id, ownerId, settings);
    if (!s) throw new NotFoundError(SUBSCRIPTION_NOT_FOUND);
    return subscriptionView(s);
  }

  async deleteSubscription(ownerId: number, id: number): Promise<{ id: number }> {
    if (!(await this.deps.subscriptions.delete(id, ownerId))) throw new NotFoundError(SUBSCRIPTION_NOT_FOUND);
    return { id };
  }

  async logs(ownerId: number, q: { limit: number; offset: number; sourceId?: number }): Promise<{ data: LogView[]; total: number }> {
    if (q.sourceId !== undefined) await this.owned(ownerId, q.sourceId);
    const { rows, total } = await this.deps.logs.list(ownerId, q);
    return { data: rows.map((r) => logView(r.log, r.driveItemName)), total };
  }

  async stats(ownerId: number): Promise<{ active_sources: number; active_subscriptions: number; recent_events: { event_id: string; event_type: string; status: string }[] }> {
    const [sources, activeSubscriptions, recent] = await Promise.all([this.deps.sources.listOwned(ownerId), this.deps.subscriptions.countActive(ownerId), this.deps.logs.recent(ownerId, 10)]);
    return {
      active_sources: sources.filter((s) => s.isActive).length,
      active_subscriptions: activeSubscriptions,
      recent_events: recent.map((e) => ({ event_id: e.eventId, event_type: e.eventType, status: e.status })),
    };
  }

  private async owned(ownerId: number, id: number): Promise<EventSourceEntity> {
    const source = await this.deps.sources.findOwned(id, ownerId);
    if (!source) throw new NotFoundError(SOURCE_NOT_FOUND);
    return source;
  }

  private async watchOrDeactivate(source: EventSourceEntity): Promise<void> {
    try {
      await this.deps.watching.openWatch(source);
    } catch (err) {
      const message = `The drive watch could not be registered: ${errorMessage(err)}`;
      this.deps.logger.warn('drive watch not registered', { sourceId: source.id, error: message });
      await this.deps.sources.deactivate(source.id, message);
      if (err instanceof AppError) throw err;
    }
  }
}
