import { driveWorkflowInputs, isDriveError, subscriptionMatches, type DriveFile, type DriveProvider, type SettledFileEvent } from '@docflow/cloud-drive';
import type { ItemOutcome } from '@docflow/persistence';
import { AppError, type Logger, errorMessage } from '@docflow/service-kit';
import { isPlainObject, resolveTemplates } from '@docflow/workflow';
import type { Caller } from '../activities/activities.service';
import type { UsersService } from '../../identity';
import type { WorkflowExecutionsService } from '../executions/workflow-executions.service';
import type { DocumentImportService, PendingImport } from './document-import';
import type { EventLogEntity, EventSourceEntity, EventSubscriptionEntity, TriggeredWorkflow } from './event-bus.entity';
import type { EventLogsRepository, FinishedEvent } from './event-logs.repository';
import type { EventSourcesRepository } from './event-sources.repository';
import type { EventSubscriptionsRepository } from './event-subscriptions.repository';

/** How long one dispatch may hold an event before another process may take it. */
export const DISPATCH_LEASE_MS = 30_000;
/** Attempts before a retryable failure (router down, the owner's 10 running executions, drive outage) is final. */
export const MAX_DISPATCH_ATTEMPTS = 6;
/**
 * Starts of one batch in flight at once: the executions' grouped starts
 * (one message and one commit for the starts queued together) take up to 32.
 */
const START_CONCURRENCY = 32;
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
/** Work of one event inside a batch, between the phases. */
interface EventWork {
  log: EventLogEntity;
  matched: number;
  triggered: TriggeredWorkflow[];
  errors: string[];
  retry: boolean;
  /** Set when the event reached its end early (ignored, failed, or a failure of its import). */
  done: boolean;
  source?: EventSourceEntity;
  caller?: Caller;
  subscriptions: EventSubscriptionEntity[];
  inputs?: Record<string, unknown>;
}

/** Runs `fn` over `items`, at most `limit` at once. */
async function eachLimit<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

export class EventDispatcher {
  private readonly clock: () => Date;
  private readonly concurrency: number;

  constructor(private readonly deps: EventDispatcherDeps & { concurrency?: number }) {
    this.clock = deps.clock ?? (() => new Date());
    this.concurrency = Math.max(1, deps.concurrency ?? 8);
  }

  /** Dispatches one event if it is still open (received, or its lease ran out); a no-op otherwise. */
  async dispatch(eventId: string): Promise<void> {
    await this.dispatchMany([eventId]);
  }

  /**
   * Dispatches the events of these ids that are still open, as one batch:
   * one claim, one read each of their sources, subscriptions and owners, one
   * trigger claim and one trigger record for all their runs, then one
   * update of their trigger counts and one of their final states. The
   * import and the run's create and start stay per event (at most
   * `concurrency` at once); event_triggers keeps each (event, subscription)
   * to one run across attempts, processes and replicas.
   */
  async dispatchMany(eventIds: string[]): Promise<void> {
    const { logs } = this.deps;
    const claimed = await logs.claimMany([...new Set(eventIds)], DISPATCH_LEASE_MS);
    if (claimed.length === 0) return;
    const work: EventWork[] = claimed.map((log) => ({ log, matched: 0, triggered: [], errors: [], retry: false, done: false, subscriptions: [] }));
    const finished: FinishedEvent[] = [];
    const counts = new Map<number, number>();
    const pending: PendingImport[] = [];
    const end = (w: EventWork, status: FinishedEvent['status'], errorMessage: string | null): void => {
      w.done = true;
      finished.push({ id: w.log.id, status, matched: w.matched, triggered: w.triggered, errorMessage });
    };
    try {
      await this.prepare(work, end);
      await eachLimit(
        work.filter((w) => !w.done),
        this.concurrency,
        async (w) => {
          try {
            w.inputs = await this.inputsFor(w, pending);
          } catch (err) {
            if (isDriveError(err) && err.kind === 'needs_reconnect') await this.deps.onReconnectNeeded(w.log.ownerId, err.message);
            if (!(err instanceof RetryLater) && !retryable(err)) this.deps.logger.warn('event dispatch failed', { eventId: w.log.eventId, error: errorMessage(err) });
            w.done = true;
            await this.failOrRetry(w, retryable(err), errorMessage(err), end);
          }
        },
      );
      // The batch's imports recorded at once; an import of the same file version recorded first keeps its document.
      const kept = await this.deps.importer.recordPending(pending);
      for (const w of work) {
        const documentId = w.inputs?.['file_document_id'];
        if (w.inputs && typeof documentId === 'number' && kept.has(documentId)) w.inputs['file_document_id'] = kept.get(documentId);
      }
      await this.startRuns(
        work.filter((w) => !w.done),
        counts,
      );
      for (const w of work.filter((x) => !x.done)) {
        if (w.errors.length === 0) end(w, 'processed', null);
        else await this.failOrRetry(w, w.retry, w.errors.join('; '), end);
      }
    } catch (err) {
      // A batch-wide failure (the database): each open event retries later, or fails at its last attempt.
      this.deps.logger.warn('event dispatch batch failed', { events: work.length, error: errorMessage(err) });
      for (const w of work.filter((x) => !x.done)) await this.failOrRetry(w, retryable(err), errorMessage(err), end).catch(() => undefined);
    } finally {
      await logs.finishMany(finished);
      await this.deps.subscriptions.countTriggers(counts, this.clock());
    }
  }

  /** Sources, subscriptions and owners of the batch (one query each); ends the events with nothing to start. */
  private async prepare(work: EventWork[], end: (w: EventWork, status: FinishedEvent['status'], errorMessage: string | null) => void): Promise<void> {
    const sources = new Map((await this.deps.sources.findByIds([...new Set(work.map((w) => w.log.eventSourceId))])).map((s) => [s.id, s]));
    const subscriptions = await this.deps.subscriptions.activeForSources([...sources.values()].filter((s) => s.isActive));
    const owners = new Map<number, Caller | null>();
    for (const w of work) {
      const source = sources.get(w.log.eventSourceId);
      const matching =
        source && source.isActive ? (subscriptions.get(source.id) ?? []).filter((s) => subscriptionMatches({ event_types: s.eventTypes, filter: s.filter }, w.log.eventType, w.log.payload)) : [];
      w.matched = matching.length;
      if (!source || matching.length === 0) {
        end(w, 'ignored', source ? null : 'The event source was removed');
        continue;
      }
      if (!owners.has(source.ownerId)) {
        const owner = await this.deps.users.findById(source.ownerId);
        owners.set(source.ownerId, owner && !owner.blocked ? { id: owner.id, role: owner.role } : null);
      }
      const caller = owners.get(source.ownerId);
      if (!caller) {
        end(w, 'failed', 'The source owner’s account is blocked');
        continue;
      }
      w.caller = caller;
      w.subscriptions = matching;
      w.source = source;
    }
  }

  /**
   * Starts each (event, subscription) run once: one trigger claim for the
   * batch, then one transaction that creates every claimed run's execution
   * and records its id in `event_triggers` (so no crash can leave a created
   * execution unrecorded, whose next attempt would create another), then
   * the starts, all at once so that the executions' grouped starts take
   * them together.
   */
  private async startRuns(work: EventWork[], counts: Map<number, number>): Promise<void> {
    const { logs, executions } = this.deps;
    const pairs = work.flatMap((w) => w.subscriptions.map((subscription) => ({ w, subscription })));
    const claims = await logs.triggerClaimMany(pairs.map((p) => ({ eventLogId: p.w.log.id, subscriptionId: p.subscription.id })));
    const runs = pairs.map((p, i) => ({ ...p, executionId: claims[i]!.executionId, failed: false }));
    const fail = (run: (typeof runs)[number], err: unknown): void => {
      run.failed = true;
      run.w.retry ||= retryable(err);
      run.w.errors.push(`subscription ${run.subscription.id}: ${errorMessage(err)}`);
    };
    const fresh = runs.filter((r) => r.executionId === null);
    // Spec 4.10: the event's inputs, plus the subscription's input_mapping (templated with them); the event's own names win.
    const items = fresh.map(({ w, subscription }) => {
      const mapped = resolveTemplates(subscription.inputMapping, { ...w.log.payload, ...w.inputs }) as Record<string, unknown>;
      return { user: w.caller!, activityId: subscription.activityId, inputs: { ...mapped, ...w.inputs } };
    });
    let created: ItemOutcome<{ id: number }>[];
    try {
      created = await executions.createMany(items, (tx, ids) =>
        logs.triggersStartedIn(
          tx,
          ids.map(({ index, id }) => ({ eventLogId: fresh[index]!.w.log.id, subscriptionId: fresh[index]!.subscription.id, executionId: id })),
        ),
      );
    } catch (err) {
      created = fresh.map(() => ({ ok: false, error: err }));
    }
    await eachLimit(
      fresh.map((run, i) => ({ run, outcome: created[i]! })),
      this.concurrency,
      async ({ run, outcome }) => {
        if (outcome.ok) {
          run.executionId = outcome.value.id;
          return;
        }
        fail(run, outcome.error);
        await logs.triggerReleased(run.w.log.id, run.subscription.id).catch(() => undefined);
      },
    );
    await eachLimit(
      runs.filter((r) => !r.failed),
      START_CONCURRENCY,
      async (run) => {
        try {
          // Created by an earlier attempt: started unless it already started (409, not queued any more, counted then).
          if (await this.startCreated(run.w.caller!, run.executionId!)) counts.set(run.subscription.id, (counts.get(run.subscription.id) ?? 0) + 1);
        } catch (err) {
          fail(run, err);
        }
      },
    );
    // The runs each event started, in its subscriptions' order.
    for (const run of runs) if (!run.failed && run.executionId !== null) run.w.triggered.push({ subscription_id: run.subscription.id, execution_id: run.executionId });
  }

  private async failOrRetry(w: EventWork, retry: boolean, message: string, end: (w: EventWork, status: FinishedEvent['status'], errorMessage: string | null) => void): Promise<void> {
    const { log } = w;
    if (retry && log.attempts < MAX_DISPATCH_ATTEMPTS) {
      w.done = true;
      await this.deps.logs.retryLater(log.id, new Date(this.clock().getTime() + retryDelayMs(log.attempts)), w.matched, w.triggered, message);
      return;
    }
    end(w, w.triggered.length > 0 ? 'processed' : 'failed', message);
  }

  /** The inputs every matched subscription's run starts with (before its own input_mapping). */
  private async inputsFor(w: EventWork, pending: PendingImport[]): Promise<Record<string, unknown>> {
    const { log, source, caller: owner } = w;
    if (!source || !owner) throw new Error(`event ${log.eventId} dispatched without its source`);
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
      // One event per file version (the settler de-duplicates): on its first attempt no import of the key can exist yet.
      firstAttempt: log.attempts === 1,
      recordLater: pending,
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

  /** Starts a created run: true when it started now (a trigger to count, spec 2.17), false when it had started already (409: counted then). */
  private async startCreated(caller: Caller, executionId: number): Promise<boolean> {
    try {
      await this.deps.executions.execute(caller, executionId, {});
      return true;
    } catch (err) {
      if (err instanceof AppError && err.status === 409) return false;
      throw err;
    }
  }
}
