import { driveWorkflowInputs, isDriveError, subscriptionMatches, type DriveFile, type DriveProvider, type SettledFileEvent } from '@docflow/cloud-drive';
import { AppError, type Logger, errorMessage } from '@docflow/service-kit';
import { isPlainObject, resolveTemplates } from '@docflow/workflow';
import type { Caller } from '../activities/activities.service';
import type { UsersService } from '../../identity';
import type { WorkflowExecutionsService } from '../executions/workflow-executions.service';
import type { DocumentImportService } from './document-import';
import type { EventLogEntity, EventSourceEntity, EventSubscriptionEntity, TriggeredWorkflow } from './event-bus.entity';
import type { EventLogsRepository } from './event-logs.repository';
import type { EventSourcesRepository } from './event-sources.repository';
import type { EventSubscriptionsRepository } from './event-subscriptions.repository';

/** How long one dispatch may hold an event before another process may take it. */
export const DISPATCH_LEASE_MS = 30_000;
/** Attempts before a retryable failure (router down, the owner's 10 running executions, drive outage) is final. */
export const MAX_DISPATCH_ATTEMPTS = 6;
/** Spec 8's largest webhook file: the same bound for a drive file stored as a document. */
export const MAX_EVENT_FILE_BYTES = 50 * 1024 * 1024;

export interface EventDispatcherDeps {
  logs: EventLogsRepository;
  sources: EventSourcesRepository;
  subscriptions: EventSubscriptionsRepository;
  users: UsersService;
  executions: WorkflowExecutionsService;
  importer: DocumentImportService;
  drive: Pick<DriveProvider, 'download'>;
  /** A revoked grant found while storing a file: the owner's drive sources go inactive (spec 3.6). */
  onReconnectNeeded(ownerId: number, message: string): Promise<void>;
  logger: Logger;
  clock?: () => Date;
}

/** A failure worth another attempt later. */
class RetryLater extends Error {}

function retryable(err: unknown): boolean {
  if (err instanceof RetryLater) return true;
  if (err instanceof AppError) return err.status === 429 || err.status >= 500;
  if (isDriveError(err)) return err.kind === 'retryable' || err.kind === 'protocol';
  return true;
}

/** Back-off before the next attempt: 5 s doubling, at most 5 minutes. */
export function retryDelayMs(attempts: number): number {
  return Math.min(300_000, 5000 * 2 ** Math.max(0, attempts - 1));
}

/**
 * Turns a recorded event into workflow runs (spec 4.10, 6): the active
 * subscriptions of its source whose `event_types` and `filter` match; none
 * makes the entry `ignored`. Otherwise the drive file is stored as a
 * document of the source's owner (once per file version: the import's
 * idempotency key is the version's source_ref), and each subscription starts
 * its activity as the owner, counting against the owner's limits like a
 * webhook run, with the inputs of 4.10 plus its `input_mapping`. Each
 * (event, subscription) starts at most one run (event_triggers), so a
 * dispatch retried after a crash or a retryable failure never runs a
 * workflow twice for the same file version.
 */
export class EventDispatcher {
  private readonly clock: () => Date;

  constructor(private readonly deps: EventDispatcherDeps) {
    this.clock = deps.clock ?? (() => new Date());
  }

  /** Dispatches one event if it is still open (received, or its lease ran out); a no-op otherwise. */
  async dispatch(eventId: string): Promise<void> {
    const log = await this.deps.logs.claim(eventId, DISPATCH_LEASE_MS);
    if (!log) return;
    let matched = 0;
    const triggered: TriggeredWorkflow[] = [];
    try {
      const source = await this.deps.sources.findById(log.eventSourceId);
      const subscriptions = source && source.isActive ? await this.matching(source, log) : [];
      matched = subscriptions.length;
      if (!source || matched === 0) {
        await this.deps.logs.finish(log.id, 'ignored', 0, [], source ? null : 'The event source was removed');
        return;
      }
      const owner = await this.deps.users.findById(source.ownerId);
      if (!owner || owner.blocked) {
        await this.deps.logs.finish(log.id, 'failed', matched, [], 'The source owner’s account is blocked');
        return;
      }
      const caller: Caller = { id: owner.id, role: owner.role };
      const inputs = await this.inputsFor(log, source, caller);
      const errors: string[] = [];
      let retry = false;
      for (const subscription of subscriptions) {
        try {
          const executionId = await this.start(caller, log, subscription, inputs);
          triggered.push({ subscription_id: subscription.id, execution_id: executionId });
        } catch (err) {
          retry ||= retryable(err);
          errors.push(`subscription ${subscription.id}: ${errorMessage(err)}`);
        }
      }
      if (errors.length === 0) await this.deps.logs.finish(log.id, 'processed', matched, triggered, null);
      else await this.failOrRetry(log, retry, matched, triggered, errors.join('; '));
    } catch (err) {
      if (isDriveError(err) && err.kind === 'needs_reconnect') await this.deps.onReconnectNeeded(log.ownerId, err.message);
      if (!(err instanceof RetryLater) && !retryable(err)) this.deps.logger.warn('event dispatch failed', { eventId, error: errorMessage(err) });
      await this.failOrRetry(log, retryable(err), matched, triggered, errorMessage(err));
    }
  }

  private async failOrRetry(log: EventLogEntity, retry: boolean, matched: number, triggered: TriggeredWorkflow[], message: string): Promise<void> {
    if (retry && log.attempts < MAX_DISPATCH_ATTEMPTS) {
      await this.deps.logs.retryLater(log.id, new Date(this.clock().getTime() + retryDelayMs(log.attempts)), matched, triggered, message);
      return;
    }
    await this.deps.logs.finish(log.id, triggered.length > 0 ? 'processed' : 'failed', matched, triggered, message);
  }

  private async matching(source: EventSourceEntity, log: EventLogEntity): Promise<EventSubscriptionEntity[]> {
    const active = await this.deps.subscriptions.activeForSource(source.id, source.ownerId);
    return active.filter((s) => subscriptionMatches({ event_types: s.eventTypes, filter: s.filter }, log.eventType, log.payload));
  }

  /** The inputs every matched subscription's run starts with (before its own input_mapping). */
  private async inputsFor(log: EventLogEntity, source: EventSourceEntity, owner: Caller): Promise<Record<string, unknown>> {
    if (log.sourceType !== 'cloud_drive') return { ...(isPlainObject(log.payload['inputs']) ? log.payload['inputs'] : {}) };
    const p = log.payload;
    const fileId = String(p['file_id']);
    const version = String(p['file_version'] ?? '');
    const download = await this.deps.drive.download(source.ownerId, fileId, { maxBytes: MAX_EVENT_FILE_BYTES });
    const sourceRef = `${source.id}:${fileId}:${version}`;
    const document = await this.deps.importer.import({
      userId: source.ownerId,
      user: owner,
      fileName: download.file.name,
      contentType: download.file.mimeType,
      content: download.stream,
      source: 'cloud_drive_event',
      sourceRef,
      idempotencyKey: `cloud_drive_event:${sourceRef}`.slice(0, 200),
    });
    const file: DriveFile = {
      id: fileId,
      name: String(p['file_name']),
      mimeType: String(p['file_mime_type']),
      size: Number(p['file_size']),
      version,
      parentIds: [],
      modifiedTime: '',
      webLink: typeof p['file_web_link'] === 'string' ? p['file_web_link'] : null,
      isFolder: false,
    };
    const event: SettledFileEvent = { eventId: log.eventId, sourceId: source.id, eventType: log.eventType === 'file_modified' ? 'file_modified' : 'file_created', file, occurredAt: log.receivedAt };
    return driveWorkflowInputs(event, { id: source.id, folderId: source.driveItemId ?? '', folderName: source.driveItemName ?? '' }, document.document_id);
  }

  /** Starts the subscription's run for this event once; answers its execution id. */
  private async start(caller: Caller, log: EventLogEntity, subscription: EventSubscriptionEntity, eventInputs: Record<string, unknown>): Promise<number> {
    const { logs, executions } = this.deps;
    const claim = await logs.triggerClaim(log.id, subscription.id);
    if (claim.executionId !== null) {
      // Created by an earlier attempt: start it unless it already started (409, not queued any more).
      await this.startCreated(caller, subscription.id, claim.executionId);
      return claim.executionId;
    }
    // Spec 4.10: the event's inputs, plus the subscription's input_mapping (templated with them); the event's own names win.
    const mapped = resolveTemplates(subscription.inputMapping, { ...log.payload, ...eventInputs }) as Record<string, unknown>;
    const inputs = { ...mapped, ...eventInputs };
    let executionId: number;
    try {
      executionId = (await executions.create(caller, { activity: subscription.activityId, inputs })).id;
    } catch (err) {
      await logs.triggerReleased(log.id, subscription.id);
      throw err;
    }
    await logs.triggerStarted(log.id, subscription.id, executionId);
    await this.startCreated(caller, subscription.id, executionId);
    return executionId;
  }

  /** Starts a created run and counts the trigger (spec 2.17); a run that already started (409) was counted then. */
  private async startCreated(caller: Caller, subscriptionId: number, executionId: number): Promise<void> {
    try {
      await this.deps.executions.execute(caller, executionId, {});
    } catch (err) {
      if (err instanceof AppError && err.status === 409) return;
      throw err;
    }
    await this.deps.subscriptions.countTrigger(subscriptionId, this.clock());
  }
}
