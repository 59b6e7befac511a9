import { CloudDriveConfig, createDriveProvider, FileSettler, SourceChangeReader, type CloudDriveSettings, type DriveProvider, type DriveTokenSealer, type SettlePass } from '@docflow/cloud-drive';
import { loadConfig, type Logger, errorMessage } from '@docflow/service-kit';
import { ActivitiesRepository } from '../activities/activities.repository';
import type { DocumentsModule } from '../../documents';
import { createCredentialsService, CredentialSealer, type IdentityServices } from '../../identity';
import { bindFeature, type MountableFeature, type PlatformServices } from '../../platform';
import type { ExecutionServices } from '../executions/workflow-executions.feature';
import { DocumentImportService } from './document-import';
import { DriveGrantsRepository, EmailCursorsRepository } from './drive-grants.repository';
import { DriveSettleRepository } from './drive-settle.repository';
import { DriveTokenLender } from './drive-token-lender';
import { DriveWatching, type EventBusBroker } from './drive-watching';
export type { EventBusBroker } from './drive-watching';
import { EmailSourcesRuntime } from './email-sources';
import { EventDispatcher } from './event-dispatcher';
import { createEventBusFeature } from './event-bus.feature';
import { EventBusService } from './event-bus.service';
import { EventLogsRepository } from './event-logs.repository';
import { EventSourcesRepository } from './event-sources.repository';
import { EventSubscriptionsRepository } from './event-subscriptions.repository';

/** What the event bus reads of CloudDriveConfig (the runtime contract's CLOUD_DRIVE_* variables). */
export type EventBusDriveSettings = CloudDriveSettings & Pick<CloudDriveConfig, 'CLOUD_DRIVE_SETTLE_SECONDS'>;

/** The defaults of the runtime contract (tests and builds that pass none). */
export function defaultDriveSettings(): EventBusDriveSettings {
  return loadConfig(CloudDriveConfig, {});
}

/** What the event bus uses of the platform, identity and the workflows module. */
export type EventBusNeeds = Pick<PlatformServices, 'config' | 'database' | 'logger' | 'openapi'> & IdentityServices & { executions: ExecutionServices };

export interface EventBusModuleDeps {
  needs: EventBusNeeds;
  documents: DocumentsModule;
  drive: EventBusDriveSettings;
  /** RabbitMQ for the drive read queue; without it reads run where the notification arrived. */
  broker?: EventBusBroker;
  /** Base of a relative CLOUD_DRIVE_LOCAL_ROOT (default the working directory). */
  projectRoot?: string;
  /** Imports run at once in one process (split over the dispatch batches running at once). Default 16. */
  dispatchConcurrency?: number;
}

export interface TickResult {
  renewed: number;
  reads: number;
  redispatched: number;
}

export interface EventBusModule {
  feature: MountableFeature;
  service: EventBusService;
  provider: DriveProvider;
  watching: DriveWatching;
  dispatcher: EventDispatcher;
  settler: FileSettler;
  /** Consumes the read queue, settles on a timer, reopens local watches and mailboxes, and ticks every `tickMs` (main). */
  start(options: { tickMs: number; readPrefetch?: number }): Promise<void>;
  stop(): Promise<void>;
  /** One background pass (main's timer; tests call it): renewals, reads after an outage, events left open. */
  tick(): Promise<TickResult>;
  /** One settle pass now (tests). */
  settleNow(): Promise<SettlePass>;
  /** Waits until no dispatch runs in this process (tests). */
  idle(): Promise<void>;
}

/**
 * Drive tokens and OAuth states sealed by the credential store's sealer
 * (AES-256-GCM under CREDENTIALS_MASTER_KEY), bound to the user. A grant is
 * no credential row: credential id 0 (rows start at 1) keeps its sealed
 * value from opening as any credential, and a credential's from opening as
 * a grant.
 */
function driveTokenSealer(sealer: CredentialSealer): DriveTokenSealer {
  const binding = (ownerId: number) => ({ credentialId: 0, ownerId });
  return {
    seal: (fields, ownerId) => sealer.seal(fields, binding(ownerId)),
    open: (sealed, ownerId) => sealer.open(sealed, binding(ownerId)),
  };
}

/** Events older than this still `received` are taken by the tick (their process died before dispatching). */
const STALE_RECEIVED_MS = 10_000;

/** Fallback settle pass interval (each file observed in this process also wakes a pass when it becomes due). */
const SETTLE_TICK_MS = 1000;

/** Events taken into one dispatch batch at most. */
const DISPATCH_BATCH = 50;
/** Dispatch batches running at once in one process (the next one claims while the last one starts its runs). */
const DISPATCH_BATCHES = 2;

/**
 * Dispatches in the background in batches: each takes the events queued at
 * that moment (at most DISPATCH_BATCH, with no linger when the queue is
 * short), at most DISPATCH_BATCHES at once; an event queued twice runs once
 * at a time (the claim decides).
 */
class DispatchQueue {
  private readonly waiting: string[] = [];
  private readonly queued = new Set<string>();
  private readonly running = new Set<Promise<void>>();
  private scheduled = false;

  constructor(
    private readonly run: (eventIds: string[]) => Promise<void>,
    private readonly logger: Logger,
  ) {}

  add(eventId: string): void {
    if (this.queued.has(eventId)) return;
    this.queued.add(eventId);
    this.waiting.push(eventId);
    // The events queued in the same turn (a settle pass) go in one batch.
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.pump();
    });
  }

  async idle(): Promise<void> {
    while (this.running.size > 0 || this.waiting.length > 0 || this.scheduled) {
      if (this.running.size === 0) await new Promise((r) => setImmediate(r));
      else await Promise.allSettled([...this.running]);
    }
  }

  private pump(): void {
    while (this.running.size < DISPATCH_BATCHES && this.waiting.length > 0) {
      const batch = this.waiting.splice(0, DISPATCH_BATCH);
      const task: Promise<void> = this.run(batch)
        .catch((err: unknown) => this.logger.error('event dispatch crashed', { events: batch.length, err }))
        .finally(() => {
          this.running.delete(task);
          for (const eventId of batch) this.queued.delete(eventId);
          this.pump();
        });
      this.running.add(task);
    }
  }
}

/**
 * The event bus in the public API (spec 2.16, 2.17, 3.6, 4.10, 6, 8):
 * routes, the drive provider, the settler over PostgreSQL, the read queue
 * on RabbitMQ, the dispatcher that starts runs, and the background tick.
 */
export function createEventBusModule(deps: EventBusModuleDeps): EventBusModule {
  const { needs: ctx, documents } = deps;
  const { database, config } = ctx;
  const logger = ctx.logger.child({ component: 'event-bus' });
  const sources = new EventSourcesRepository(database);
  const subscriptions = new EventSubscriptionsRepository(database);
  const logs = new EventLogsRepository(database);
  const grants = new DriveGrantsRepository(database);
  const sealer = driveTokenSealer(new CredentialSealer(config.CREDENTIALS_MASTER_KEY, config.CREDENTIALS_MASTER_KEY_PREVIOUS));

  // The provider delivers local watches' notifications to `watching`, built just below.
  const holder: { watching?: DriveWatching } = {};
  const provider = createDriveProvider(deps.drive, {
    logger: logger.child({ component: 'cloud-drive' }),
    grants,
    sealer,
    projectRoot: deps.projectRoot,
    onNotification: (n) => {
      holder.watching?.notify(n).catch((err: unknown) => logger.warn('drive notification not queued', { error: errorMessage(err) }));
    },
  });
  const settleMs = deps.drive.CLOUD_DRIVE_SETTLE_SECONDS * 1000;
  const owners = new Map<number, number>();
  const ownerOf = async (sourceId: number): Promise<number | null> => {
    const known = owners.get(sourceId);
    if (known !== undefined) return known;
    const source = await sources.findById(sourceId);
    if (source) owners.set(sourceId, source.ownerId);
    return source?.ownerId ?? null;
  };
  const importer = new DocumentImportService({
    database,
    users: ctx.users,
    uploads: documents.uploads,
    documents: documents.documents,
    textExtraction: documents.textExtraction,
    tempDir: documents.uploadTempDir,
    maxBytes: config.UPLOAD_MAX_FILE_SIZE_MB * 1024 * 1024,
    logger,
  });
  const reconnectNeeded = (ownerId: number, message: string) => holder.watching?.reconnectNeeded(ownerId, message) ?? Promise.resolve();
  const dispatcher = new EventDispatcher({
    logs,
    sources,
    subscriptions,
    users: ctx.users,
    executions: ctx.executions.executions,
    importer,
    drive: provider,
    onReconnectNeeded: reconnectNeeded,
    logger,
    concurrency: Math.ceil((deps.dispatchConcurrency ?? 16) / DISPATCH_BATCHES),
  });
  const dispatchQueue = new DispatchQueue((eventIds) => dispatcher.dispatchMany(eventIds), logger);
  const settler = new FileSettler({
    store: new DriveSettleRepository(database),
    settleMs,
    logger,
    recheck: async (pending) => {
      const ownerId = await ownerOf(pending.sourceId);
      return ownerId === null ? null : provider.getFile(ownerId, pending.fileId);
    },
    onEvent: (event) => dispatchQueue.add(event.eventId),
  });
  const reader = new SourceChangeReader({ provider, settler, tokens: sources, logger });
  const watching = new DriveWatching({ sources, provider, reader, broker: deps.broker, publicBaseUrl: config.PUBLIC_BASE_URL, logger });
  holder.watching = watching;

  const email = new EmailSourcesRuntime({
    sources,
    logs,
    cursors: new EmailCursorsRepository(database),
    credentials: createCredentialsService({ config, database, audit: ctx.audit }),
    importer,
    dispatch: (eventId) => dispatchQueue.add(eventId),
    logger: logger.child({ component: 'email-source' }),
  });
  const service = new EventBusService({ sources, subscriptions, logs, activities: new ActivitiesRepository(database), provider, watching, email, audit: ctx.audit, logger });
  const feature = bindFeature(createEventBusFeature({ service, watching, importer, lender: new DriveTokenLender(provider, grants, reconnectNeeded), publicBaseUrl: config.PUBLIC_BASE_URL }), ctx);

  let ticker: NodeJS.Timeout | undefined;
  let ticking: Promise<TickResult> | undefined;
  let consumer: { cancel(timeoutMs?: number): Promise<void> } | undefined;

  const tick = async (): Promise<TickResult> => {
    const renewed = await watching.renewDue();
    const reads = await watching.readsDue();
    const open = await logs.openEventIds(new Date(Date.now() - STALE_RECEIVED_MS), 100);
    for (const eventId of open) dispatchQueue.add(eventId);
    return { renewed, reads, redispatched: open.length };
  };

  return {
    feature,
    service,
    provider,
    watching,
    dispatcher,
    settler,
    async start(options) {
      consumer = await watching.consume(options.readPrefetch ?? 4);
      // Each file observed here wakes a pass when it becomes due; the tick is the fallback (files another process saw, a restart).
      settler.start(SETTLE_TICK_MS);
      await watching.reopenLocalWatches();
      await email.startAll();
      ticker = setInterval(() => {
        ticking ??= tick()
          .catch((err: unknown) => {
            logger.warn('event bus tick failed', { error: errorMessage(err) });
            return { renewed: 0, reads: 0, redispatched: 0 };
          })
          .finally(() => (ticking = undefined));
      }, options.tickMs);
      ticker.unref();
    },
    async stop() {
      if (ticker) clearInterval(ticker);
      ticker = undefined;
      await ticking;
      await consumer?.cancel(5000);
      consumer = undefined;
      await settler.stop();
      await email.stopAll();
      await dispatchQueue.idle();
      await provider.close();
    },
    tick,
    settleNow: () => settler.settleDue(),
    idle: () => dispatchQueue.idle(),
  };
}
