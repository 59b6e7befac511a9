import { randomUUID } from 'node:crypto';
import type { Logger } from '@docflow/service-kit';
import type { DriveChange, DriveFile } from '../drive-provider';
import { isDriveError } from '../drive-errors';
import type { SettledFileEvent } from './drive-event';
import type { EmissionRecord, PendingFile, SettleStore } from './settle-store';

/** `CLOUD_DRIVE_SETTLE_SECONDS` default (runtime contract). */
export const DEFAULT_SETTLE_SECONDS = 5;

export interface FileSettlerOptions {
  store: SettleStore;
  /** A file emits once its size and version have not changed for this long. */
  settleMs: number;
  /**
   * The file's metadata now (the provider's `getFile` as the source's
   * owner), read once it looks settled; null when it is gone. A DriveError
   * leaves the file pending for the next pass.
   */
  recheck(pending: PendingFile): Promise<DriveFile | null>;
  /**
   * Called once per claimed emission, after the store recorded it. A wake-up,
   * not the durable path: the PostgreSQL store writes the event with the
   * claim, so an error here (logged by `start`) loses nothing there.
   */
  onEvent(event: SettledFileEvent): Promise<void> | void;
  logger: Logger;
  /** Files settled per pass. Default 200. */
  batchSize?: number;
  /** Files observed or settled side by side (store round trips overlap). Default 4. */
  concurrency?: number;
  clock?: () => Date;
  newEventId?: () => string;
}

/** What one `settleDue` pass did. */
export interface SettlePass {
  emitted: SettledFileEvent[];
  /** Changed since they were last seen: their settle clock restarted. */
  restarted: number;
  /** Gone before they settled. */
  dropped: number;
  /** Recheck failed (drive unreachable, rate limited): still pending. */
  deferred: number;
}

/**
 * Settle and de-duplicate (spec 4.10, issue 14): a file emits once its size
 * and version have stayed the same for the settle time, once per version
 * per source: `file_created` the first time, `file_modified` for each later
 * version. Sightings come from change lists (`observeChanges`); `settleDue`
 * (called on a timer by `start`, or by a test) rereads each file that looks
 * settled and lets the store's atomic claim decide, so replicas may run it
 * side by side and a duplicate push or a rescan never emits twice.
 */
export class FileSettler {
  private readonly batchSize: number;
  private readonly concurrency: number;
  private readonly clock: () => Date;
  private readonly newEventId: () => string;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<SettlePass> | undefined;

  constructor(private readonly options: FileSettlerOptions) {
    if (!Number.isFinite(options.settleMs) || options.settleMs < 0) throw new RangeError('settleMs must be a non-negative number');
    this.batchSize = options.batchSize ?? 200;
    this.concurrency = Math.max(1, options.concurrency ?? 4);
    this.clock = options.clock ?? (() => new Date());
    this.newEventId = options.newEventId ?? randomUUID;
  }

  /** Records the files of a change page: present ones start (or keep) settling, removed ones are forgotten. */
  async observeChanges(sourceId: number, changes: readonly DriveChange[]): Promise<void> {
    // The latest change of each file wins; files are independent of each other, so their round trips overlap.
    const latest = new Map<string, DriveChange>();
    for (const change of changes) latest.set(change.fileId, change);
    await eachLimited([...latest.values()], this.concurrency, async (change) => {
      if (change.removed || !change.file) await this.options.store.drop(sourceId, change.fileId);
      else if (!change.file.isFolder) await this.options.store.observe(sourceId, change.file, this.clock());
    });
  }

  /** One pass over the files that look settled; passes never overlap in one process. */
  settleDue(): Promise<SettlePass> {
    this.running ??= this.pass().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /** Runs `settleDue` every `intervalMs` (errors are logged, never thrown). */
  start(intervalMs: number): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      this.settleDue().catch((err: unknown) => this.options.logger.error('drive settle pass failed', { err }));
    }, intervalMs);
    this.timer.unref();
  }

  /** Stops the timer and waits for a pass in progress. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
  }

  private async pass(): Promise<SettlePass> {
    const { store } = this.options;
    const result: SettlePass = { emitted: [], restarted: 0, dropped: 0, deferred: 0 };
    const stableBefore = new Date(this.clock().getTime() - this.options.settleMs);
    // Rechecks run side by side; the files still the same are then claimed together, in one transaction.
    const settled: Array<{ pending: PendingFile; record: EmissionRecord; file: DriveFile }> = [];
    await eachLimited(await store.due(stableBefore, this.batchSize), this.concurrency, async (pending) => {
      let now: DriveFile | null;
      try {
        now = await this.options.recheck(pending);
      } catch (err) {
        if (!isDriveError(err)) throw err;
        if (err.kind === 'not_found') now = null;
        else {
          result.deferred += 1;
          this.options.logger.warn('drive file recheck failed; it stays pending', { sourceId: pending.sourceId, fileId: pending.fileId, kind: err.kind });
          return;
        }
      }
      if (!now || now.isFolder) {
        await store.drop(pending.sourceId, pending.fileId);
        result.dropped += 1;
        return;
      }
      if (now.version !== pending.version || now.size !== pending.size) {
        await store.observe(pending.sourceId, now, this.clock());
        result.restarted += 1;
        return;
      }
      settled.push({ pending, record: { eventId: this.newEventId(), occurredAt: this.clock() }, file: now });
    });
    if (settled.length === 0) return result;
    const types = await store.claimMany(settled.map(({ pending, record }) => ({ pending, record })));
    settled.forEach(({ pending, record, file }, i) => {
      const eventType = types[i];
      if (eventType) result.emitted.push({ eventId: record.eventId, sourceId: pending.sourceId, eventType, file, occurredAt: record.occurredAt });
    });
    const errors: unknown[] = [];
    for (const event of result.emitted) {
      try {
        await this.options.onEvent(event);
      } catch (err) {
        errors.push(err);
      }
    }
    if (errors.length > 0) throw errors[0];
    return result;
  }
}

/** Runs `work` over `items`, at most `limit` at a time; the first error rejects once all started work ended. */
async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const errors: unknown[] = [];
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++] as T;
      try {
        await work(item);
      } catch (err) {
        errors.push(err);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  if (errors.length > 0) throw errors[0];
}
