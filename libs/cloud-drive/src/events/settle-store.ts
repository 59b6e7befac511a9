import type { DriveFile } from '../drive-provider';
import type { DriveEventType } from './drive-event';

/** A file seen in a source's folder that has not emitted its current version yet. */
export interface PendingFile {
  sourceId: number;
  fileId: string;
  version: string;
  size: number;
  /** Since when version and size have been these. */
  stableSince: Date;
  /** The latest metadata seen. */
  file: DriveFile;
}

export type ObserveOutcome =
  /** New, or a version or size different from the pending one: the settle clock (re)starts. */
  | 'pending'
  /** Same version and size as the pending row: its clock keeps running. */
  | 'unchanged'
  /** This version was already emitted for this source: nothing to do (a push delivered twice, a rescan). */
  | 'already_emitted';

/** What `observeMany` answers per file: the outcome, and since when the pending row has been stable (null when already emitted). */
export interface Observed {
  outcome: ObserveOutcome;
  stableSince: Date | null;
}

/** What `claim` records with the emission (the PostgreSQL store writes the event row in the same transaction). */
export interface EmissionRecord {
  eventId: string;
  occurredAt: Date;
}

/**
 * Where the settler keeps its state, so that any replica may settle any
 * file and a restart loses nothing. The in-memory store below is for tests
 * and single-process use; the public API backs it with PostgreSQL in a
 * repository (event-bus phase 2), with two tables:
 *
 *   drive_file_pending   (source_id int, file_id text, version text, size bigint,
 *                         stable_since timestamptz, file jsonb, PRIMARY KEY (source_id, file_id))
 *   drive_file_emissions (source_id int, file_id text, version text, event_id text,
 *                         emitted_at timestamptz, PRIMARY KEY (source_id, file_id))
 *
 * - observe: in one statement, skip when drive_file_emissions holds this
 *   version ('already_emitted'); else INSERT ... ON CONFLICT (source_id,
 *   file_id) DO UPDATE SET version, size, file, stable_since = CASE WHEN the
 *   version or size differ THEN now ELSE the old value END.
 * - due: SELECT ... WHERE stable_since <= $1 ORDER BY stable_since LIMIT $2
 *   (FOR UPDATE SKIP LOCKED is not needed: claim is the arbiter).
 * - claim, in one transaction: DELETE FROM drive_file_pending WHERE
 *   source_id, file_id, version and stable_since are the given ones
 *   (nothing deleted: another replica claimed it, or it changed: return
 *   null); INSERT INTO drive_file_emissions ... ON CONFLICT (source_id,
 *   file_id) DO UPDATE SET version = EXCLUDED.version, ... WHERE
 *   drive_file_emissions.version <> EXCLUDED.version RETURNING (xmax = 0)
 *   AS created (no row: this version was emitted already, return null;
 *   created: 'file_created'; else 'file_modified'); then insert the event
 *   log row (status `received`) and its outbox message in the same
 *   transaction, so an emission is never recorded without its event nor
 *   queued twice.
 * - drop: DELETE the pending row.
 */
export interface SettleStore {
  observe(sourceId: number, file: DriveFile, now: Date): Promise<ObserveOutcome>;
  /**
   * `observe` for the files of one change page at once (one statement where
   * the store has them), each with the time its settle clock starts from if
   * it is new or changed; answers in the order given. A file id appears at
   * most once.
   */
  observeMany(sourceId: number, sightings: ReadonlyArray<{ file: DriveFile; stableSince: Date }>): Promise<Observed[]>;
  /** Pending files stable since `stableBefore` or earlier, oldest first, at most `limit`. */
  due(stableBefore: Date, limit: number): Promise<PendingFile[]>;
  /**
   * Atomically: when the pending row still has this version and
   * stableSince, removes it and records the version as emitted; answers the
   * event type (`file_created` the first time a file emits for this source,
   * `file_modified` after), or null when there is nothing to emit (claimed
   * elsewhere, changed meanwhile, or this version emitted already).
   */
  claim(pending: PendingFile, record: EmissionRecord): Promise<DriveEventType | null>;
  /**
   * `claim` for many files at once, each with the same atomic rule, in one
   * transaction where the store has them (one commit per settle pass instead
   * of one per file); answers in the order given.
   */
  claimMany(claims: ReadonlyArray<{ pending: PendingFile; record: EmissionRecord }>): Promise<Array<DriveEventType | null>>;
  /** Forgets a pending file (removed or trashed before it settled). */
  drop(sourceId: number, fileId: string): Promise<void>;
}

const key = (sourceId: number, fileId: string): string => `${sourceId}\u0000${fileId}`;

/** The SettleStore in a process's memory: for tests and single-process runs. */
export class InMemorySettleStore implements SettleStore {
  private readonly pending = new Map<string, PendingFile>();
  private readonly emitted = new Map<string, { version: string; eventId: string }>();

  async observe(sourceId: number, file: DriveFile, now: Date): Promise<ObserveOutcome> {
    const k = key(sourceId, file.id);
    if (this.emitted.get(k)?.version === file.version) {
      this.pending.delete(k);
      return 'already_emitted';
    }
    const current = this.pending.get(k);
    if (current && current.version === file.version && current.size === file.size) {
      this.pending.set(k, { ...current, file });
      return 'unchanged';
    }
    this.pending.set(k, { sourceId, fileId: file.id, version: file.version, size: file.size, stableSince: now, file });
    return 'pending';
  }

  async observeMany(sourceId: number, sightings: ReadonlyArray<{ file: DriveFile; stableSince: Date }>): Promise<Observed[]> {
    const out: Observed[] = [];
    for (const { file, stableSince } of sightings) {
      const outcome = await this.observe(sourceId, file, stableSince);
      out.push({ outcome, stableSince: this.pending.get(key(sourceId, file.id))?.stableSince ?? null });
    }
    return out;
  }

  async due(stableBefore: Date, limit: number): Promise<PendingFile[]> {
    return [...this.pending.values()]
      .filter((p) => p.stableSince.getTime() <= stableBefore.getTime())
      .sort((a, b) => a.stableSince.getTime() - b.stableSince.getTime())
      .slice(0, limit);
  }

  async claim(pending: PendingFile, record: EmissionRecord): Promise<DriveEventType | null> {
    const k = key(pending.sourceId, pending.fileId);
    const current = this.pending.get(k);
    if (!current || current.version !== pending.version || current.stableSince.getTime() !== pending.stableSince.getTime()) return null;
    this.pending.delete(k);
    const previous = this.emitted.get(k);
    if (previous?.version === pending.version) return null;
    this.emitted.set(k, { version: pending.version, eventId: record.eventId });
    return previous ? 'file_modified' : 'file_created';
  }

  async claimMany(claims: ReadonlyArray<{ pending: PendingFile; record: EmissionRecord }>): Promise<Array<DriveEventType | null>> {
    const out: Array<DriveEventType | null> = [];
    for (const c of claims) out.push(await this.claim(c.pending, c.record));
    return out;
  }

  async drop(sourceId: number, fileId: string): Promise<void> {
    this.pending.delete(key(sourceId, fileId));
  }

  /** For tests: how many files wait to settle. */
  get pendingCount(): number {
    return this.pending.size;
  }
}
