import { randomUUID } from 'node:crypto';
import type { Logger } from '@docflow/service-kit';
import type { DriveChange, DriveFile } from '../drive-provider';
import { isDriveError } from '../drive-errors';
import type { SettledFileEvent } from './drive-event';
import type { EmissionRecord, PendingFile, SettleStore } from './settle-store';

/** `CLOUD_DRIVE_SETTLE_SECONDS` default (runtime contract). */
export const DEFAULT_SETTLE_SECONDS = 5;

/**
 * How long a zero-byte file must have gone unwritten (by its modified time)
 * before it settles, when the settle time is shorter; see `settleClockStart`.
 */
export const EMPTY_FILE_QUIET_MS = 10_000;

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
  /** Files the pass found due (at most the batch size). */
  due: number;
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
  /** When files this process saw become due (ms), soonest first: a pass runs at each, not at the next tick. */
  private wakeAt: number[] = [];
  private wakeTimer: NodeJS.Timeout | undefined;
  private wakeTimerAt = Infinity;
  /** A wake-up came while a pass ran: run another when it ends. */
  private again = false;

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
    const present: DriveFile[] = [];
    const removed: string[] = [];
    for (const change of latest.values()) {
      if (change.removed || !change.file) removed.push(change.fileId);
      else if (!change.file.isFolder) present.push(change.file);
    }
    // The page's files in one statement per OBSERVE_CHUNK; removals (rare) one by one, side by side.
    const now = this.clock();
    for (let i = 0; i < present.length; i += OBSERVE_CHUNK) {
      const chunk = present.slice(i, i + OBSERVE_CHUNK);
      const observed = await this.options.store.observeMany(
        sourceId,
        chunk.map((file) => ({ file, stableSince: settleClockStart(file, now, this.options.settleMs) })),
      );
      for (const o of observed) if (o.stableSince) this.wakeUpAt(o.stableSince.getTime() + this.options.settleMs);
    }
    await eachLimited(removed, this.concurrency, (fileId) => this.options.store.drop(sourceId, fileId));
  }

  /** Schedules a pass at `ms` (once started); the soonest pending wake-up holds the one timer. */
  private wakeUpAt(ms: number): void {
    if (!this.timer) return;
    // Binary search for the first later wake-up; a file seen again (or files seen together) add no second one.
    let lo = 0;
    let hi = this.wakeAt.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.wakeAt[mid]! <= ms) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0 && this.wakeAt[lo - 1] === ms) return;
    this.wakeAt.splice(lo, 0, ms);
    this.armWakeTimer();
  }

  private armWakeTimer(): void {
    const next = this.wakeAt[0];
    if (next === undefined || !this.timer || next >= this.wakeTimerAt) return;
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    this.wakeTimerAt = next;
    this.wakeTimer = setTimeout(
      () => {
        this.wakeTimer = undefined;
        this.wakeTimerAt = Infinity;
        const now = this.clock().getTime();
        while (this.wakeAt.length > 0 && this.wakeAt[0]! <= now) this.wakeAt.shift();
        this.armWakeTimer();
        this.kick();
      },
      Math.max(0, next - this.clock().getTime()),
    );
    this.wakeTimer.unref();
  }

  /** A pass now, or right after the one running. */
  private kick(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.settleDue().catch((err: unknown) => this.options.logger.error('drive settle pass failed', { err }));
  }

  /** One pass over the files that look settled; passes never overlap in one process. */
  settleDue(): Promise<SettlePass> {
    this.running ??= this.pass()
      .then((pass) => {
        // A full batch leaves more due now: the next pass follows at once.
        // (Unless every file was deferred: a drive that is down waits for the next tick.)
        if (pass.due >= this.batchSize && pass.deferred < pass.due) this.again = true;
        return pass;
      })
      .finally(() => {
        this.running = undefined;
        if (this.again && this.timer) {
          this.again = false;
          setImmediate(() => this.kick());
        }
      });
    return this.running;
  }

  /**
   * Runs `settleDue` every `intervalMs` (errors are logged, never thrown),
   * and also when each file this process observed becomes due: the tick is
   * the fallback for files other replicas saw and for a restart.
   */
  start(intervalMs: number): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.kick(), intervalMs);
    this.timer.unref();
  }

  /** Stops the timers and waits for a pass in progress. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    this.wakeTimer = undefined;
    this.wakeTimerAt = Infinity;
    this.wakeAt = [];
    await this.running?.catch(() => undefined);
  }

  private async pass(): Promise<SettlePass> {
    const { store } = this.options;
    const result: SettlePass = { emitted: [], restarted: 0, dropped: 0, deferred: 0, due: 0 };
    const stableBefore = new Date(this.clock().getTime() - this.options.settleMs);
    // Rechecks run side by side; the files still the same are then claimed together, in one transaction.
    const settled: Array<{ pending: PendingFile; record: EmissionRecord; file: DriveFile }> = [];
    const due = await store.due(stableBefore, this.batchSize);
    result.due = due.length;
    await eachLimited(due, this.concurrency, async (pending) => {
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
        const at = settleClockStart(now, this.clock(), this.options.settleMs);
        await store.observe(pending.sourceId, now, at);
        this.wakeUpAt(at.getTime() + this.options.settleMs);
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

/**
 * Where a sighting at `seenAt` starts a file's settle clock (it settles
 * `settleMs` later if it does not change). A zero-byte file is most often
 * one whose writer created it and has not written yet: under load the two
 * can be seconds apart, and settling it then emitted an empty file_created
 * followed by a file_modified. So an empty file is due only once it stayed
 * empty for the settle time since it was seen AND its modified time is
 * EMPTY_FILE_QUIET_MS (or the settle time, if longer) old; a truly empty
 * file still emits, later. A modified time in the future (a client's own
 * date) delays it by that quiet time at most. No window can be sure to
 * outlast a stalled writer; this one is ten seconds beyond the write.
 */
export function settleClockStart(file: Pick<DriveFile, 'size' | 'modifiedTime'>, seenAt: Date, settleMs: number): Date {
  if (file.size > 0) return seenAt;
  const modified = Date.parse(file.modifiedTime);
  if (!Number.isFinite(modified)) return seenAt;
  const wait = Math.max(settleMs, EMPTY_FILE_QUIET_MS) - settleMs;
  return new Date(Math.max(seenAt.getTime(), Math.min(modified, seenAt.getTime()) + wait));
}

/** Files of a change page observed in one store call at most. */
const OBSERVE_CHUNK = 500;

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
