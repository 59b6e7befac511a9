import { randomBytes, randomUUID } from 'node:crypto';
import { IsIn, IsInt, IsString, Length, Max, Min } from 'class-validator';
import { channelTokenMatches, type DriveNotification, type DriveProvider, RENEW_BEFORE_MS, type SourceChangeReader, watchExpiry } from '@docflow/cloud-drive';
import { PUBLIC_API_QUEUES } from '@docflow/contracts';
import type { Broker } from '@docflow/messaging';
import { errorMessage, type Logger } from '@docflow/service-kit';
import type { EventSourceEntity } from './event-bus.entity';
import type { EventSourcesRepository } from './event-sources.repository';

/**
 * Work queue of the event bus: "read this source's changes". Published by
 * the push receiver, by local watches and by the tick; consumed by every
 * public API process. Only the public API uses it; the name is in
 * @docflow/contracts for the router's queue depths.
 */
export const EVENT_BUS_QUEUE = PUBLIC_API_QUEUES.eventBus;

export class DriveReadJobV1 {
  @IsIn([1])
  version!: 1;

  @IsInt()
  @Min(1)
  @Max(2147483647)
  source_id!: number;

  /** `push`, `local_watch`, `retry`, `activate`: for logs only. */
  @IsString()
  @Length(1, 40)
  reason!: string;
}

export type EventBusBroker = Pick<Broker, 'assertWorkQueue' | 'consume' | 'publish'>;

export interface DriveWatchingDeps {
  sources: EventSourcesRepository;
  provider: DriveProvider;
  reader: SourceChangeReader;
  /** Without a broker (tests of the routes alone), reads run in the calling process. */
  broker?: EventBusBroker;
  /** PUBLIC_BASE_URL: Google pushes to `<it>/api/event-bus/drive-webhook`. */
  publicBaseUrl: string;
  logger: Logger;
  clock?: () => Date;
}

/** Time a renewing tick holds a source before another tick may try again. */
const RENEW_LEASE_MS = 10 * 60 * 1000;

/**
 * Drive watches and change reading (spec 3.6, 4.10, 8): opens, renews and
 * stops push channels (at most 24 h, renewed about 2 h before expiry),
 * checks each notification's channel id and token (timing-safe), queues a
 * read on RabbitMQ, and reads a source's changes from its saved page token
 * into the settler. A drive outage backs off and resumes from that token;
 * a revoked grant or a lost folder makes the source inactive with
 * `error_message`.
 */
export class DriveWatching {
  private readonly clock: () => Date;
  private declared: Promise<void> | undefined;
  /** Sources being read in this process; `again` when a read was asked for meanwhile. */
  private readonly reading = new Map<number, { again: boolean; done: Promise<void> }>();

  constructor(private readonly deps: DriveWatchingDeps) {
    this.clock = deps.clock ?? (() => new Date());
  }

  get pushAddress(): string {
    return `${this.deps.publicBaseUrl.replace(/\/+$/, '')}/api/event-bus/drive-webhook`;
  }

  /** Spec 3.6: a drive source is created active when the push address is public HTTPS (always with the local provider, which needs none). */
  get canWatchOnCreate(): boolean {
    return this.deps.provider.kind === 'local' || this.pushAddress.startsWith('https://');
  }

  /**
   * A notification (Google push or local watch): true when it names a
   * source's live channel with its token, and the read was queued. An
   * unknown channel or a wrong token answers false, and nothing else.
   */
  async notify(notification: DriveNotification): Promise<boolean> {
    const source = await this.deps.sources.findByChannel(notification.channelId);
    if (!source || !source.isActive || !source.watchChannelToken) return false;
    if (!channelTokenMatches(source.watchChannelToken, notification.channelToken)) return false;
    await this.requestRead(source.id, notification.resourceState === 'sync' ? 'sync' : 'push');
    return true;
  }

  async requestRead(sourceId: number, reason: string): Promise<void> {
    const broker = this.deps.broker;
    if (!broker) {
      await this.read({ version: 1, source_id: sourceId, reason });
      return;
    }
    this.declared ??= broker.assertWorkQueue(EVENT_BUS_QUEUE).catch((err: unknown) => {
      this.declared = undefined;
      throw err;
    });
    await this.declared;
    await broker.publish(EVENT_BUS_QUEUE, DriveReadJobV1, { version: 1, source_id: sourceId, reason });
  }

  /**
   * The queue's handler: reads the source's changes into the settler, and
   * acts on the outcome. A read asked for while the same source is being
   * read in this process is folded into one more read after it (a read
   * takes everything since the saved page token): reads of one folder do
   * not run side by side, each listing the same files. The job being read
   * is acknowledged only after that extra read, so a crash loses neither.
   */
  readonly read = async (job: DriveReadJobV1): Promise<void> => {
    const running = this.reading.get(job.source_id);
    if (running) {
      running.again = true;
      // Done (and acknowledged) once the read that covers it ended; its failure is the first job's to report.
      await running.done.catch(() => undefined);
      return;
    }
    const state = { again: false, done: Promise.resolve() };
    const loop = async (): Promise<void> => {
      try {
        do {
          state.again = false;
          await this.readOnce(job);
        } while (state.again);
      } finally {
        this.reading.delete(job.source_id);
      }
    };
    this.reading.set(job.source_id, state);
    state.done = loop();
    await state.done;
  };

  private async readOnce(job: DriveReadJobV1): Promise<void> {
    const { sources, reader, logger } = this.deps;
    const source = await sources.findById(job.source_id);
    if (!source || !source.isActive || source.sourceType !== 'cloud_drive' || !source.pageToken || !source.driveItemId) return;
    const outcome = await reader.read({ sourceId: source.id, ownerId: source.ownerId, folderId: source.driveItemId, pageToken: source.pageToken });
    switch (outcome.kind) {
      case 'read':
      case 'resynced':
        if (source.readAfter || source.errorMessage) await sources.readDone(source.id);
        return;
      case 'retry_later':
        logger.warn('drive changes not readable now; retrying from the saved page token', { sourceId: source.id, retryAfterMs: outcome.retryAfterMs });
        await sources.readLater(source.id, new Date(this.clock().getTime() + Math.max(1000, outcome.retryAfterMs)), `The drive is unavailable (${outcome.message}); retrying`);
        return;
      case 'needs_reconnect':
        await this.reconnectNeeded(source.ownerId, outcome.message);
        return;
      case 'failed':
        await this.stop(source);
        await sources.deactivate(source.id, outcome.message);
        return;
      default: {
        const never: never = outcome;
        throw new Error(`unknown read outcome ${JSON.stringify(never)}`);
      }
    }
  }

  /** Starts consuming the queue (main, and tests with a broker). */
  async consume(prefetch: number): Promise<{ cancel(timeoutMs?: number): Promise<void> } | undefined> {
    const broker = this.deps.broker;
    if (!broker) return undefined;
    await broker.assertWorkQueue(EVENT_BUS_QUEUE);
    return broker.consume(EVENT_BUS_QUEUE, DriveReadJobV1, (job) => this.read(job), { prefetch });
  }

  /** Opens a new channel for the source (a fresh id and token), saves it, then stops the old one. */
  async openWatch(source: EventSourceEntity): Promise<void> {
    if (!source.driveItemId || !source.pageToken) throw new Error(`source ${source.id} has no folder or page token`);
    const channelId = randomUUID();
    const channelToken = randomBytes(32).toString('hex');
    const watch = await this.deps.provider.watch(source.ownerId, {
      folderId: source.driveItemId,
      pageToken: source.pageToken,
      channelId,
      channelToken,
      address: this.pushAddress,
      ttlMs: watchExpiry(this.clock()).getTime() - this.clock().getTime(),
    });
    await this.deps.sources.saveWatch(source.id, { channelId, channelToken, resourceId: watch.resourceId, expiresAt: watch.expiresAt });
    await this.stop(source);
    // The channel's own first notification may arrive before its id is saved (and is then ignored): read once now,
    // which also picks up what changed while the source was inactive.
    await this.requestRead(source.id, 'watch');
  }

  /** Reopens the in-process watches of the local provider (each process holds its own, under the stored channel). */
  async reopenLocalWatches(): Promise<void> {
    if (this.deps.provider.kind !== 'local') return;
    for (const source of await this.deps.sources.listActive('cloud_drive')) {
      try {
        if (!source.watchChannelId || !source.watchChannelToken || !source.driveItemId || !source.pageToken) {
          await this.openWatch(source);
          continue;
        }
        const expiresAt = source.watchExpiry && source.watchExpiry > this.clock() ? source.watchExpiry : watchExpiry(this.clock());
        await this.deps.provider.watch(source.ownerId, {
          folderId: source.driveItemId,
          pageToken: source.pageToken,
          channelId: source.watchChannelId,
          channelToken: source.watchChannelToken,
          address: this.pushAddress,
          ttlMs: expiresAt.getTime() - this.clock().getTime(),
        });
      } catch (err) {
        this.deps.logger.warn('local drive watch not reopened', { sourceId: source.id, error: errorMessage(err) });
      }
    }
  }

  /** Spec 8: renews the watches that expire within 2 hours; a failure makes the source inactive with the reason (3.6). */
  async renewDue(limit = 50): Promise<number> {
    const now = this.clock();
    const due = await this.deps.sources.claimRenewals(new Date(now.getTime() + RENEW_BEFORE_MS), RENEW_LEASE_MS, limit);
    for (const source of due) {
      try {
        await this.openWatch(source);
      } catch (err) {
        const message = `The drive watch could not be renewed: ${errorMessage(err)}`;
        this.deps.logger.warn('drive watch renewal failed', { sourceId: source.id, error: message });
        await this.deps.sources.deactivate(source.id, message);
      }
    }
    return due.length;
  }

  /** Reads again the sources whose drive was unavailable. */
  async readsDue(limit = 50): Promise<number> {
    const due = await this.deps.sources.claimDueReads(this.clock(), limit);
    for (const source of due) await this.requestRead(source.id, 'retry');
    return due.length;
  }

  /** A revoked or disconnected grant: every drive source of the owner goes inactive with the reason (spec 3.6). */
  async reconnectNeeded(ownerId: number, message: string): Promise<void> {
    const ids = await this.deps.sources.deactivateOwnerDrives(ownerId, message);
    if (ids.length > 0) this.deps.logger.warn('drive grant unusable: sources deactivated', { ownerId, sources: ids });
  }

  /** Closes the source's channel; an unknown or expired one is not an error. */
  async stop(source: Pick<EventSourceEntity, 'ownerId' | 'watchChannelId' | 'watchResourceId'>): Promise<void> {
    if (!source.watchChannelId) return;
    await this.deps.provider
      .stopWatch(source.ownerId, { channelId: source.watchChannelId, resourceId: source.watchResourceId ?? '' })
      .catch((err: unknown) => this.deps.logger.warn('drive watch not stopped', { error: errorMessage(err) }));
  }
}
