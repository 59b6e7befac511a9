import { driveEventPayload, type DriveEventType, type DriveFile, type EmissionRecord, type Observed, type ObserveOutcome, type PendingFile, type SettleStore } from '@docflow/cloud-drive';
import type { PublicApiDatabase } from '../../platform';

interface PendingRow {
  source_id: number;
  file_id: string;
  version: string;
  size: string;
  stable_since: Date;
  file: DriveFile;
}

const toPending = (r: PendingRow): PendingFile => ({ sourceId: r.source_id, fileId: r.file_id, version: r.version, size: Number(r.size), stableSince: r.stable_since, file: r.file });

/**
 * Locks the pending rows of these files that exist, in (source, file id)
 * order: the statements that then write many of them (a page observed, a
 * pass claimed) take their row locks in one order, so two of them never
 * deadlock (the multi-row DELETE and upsert alone lock in plan order).
 */
async function lockPending(m: Pick<PublicApiDatabase, 'query'>, sourceIds: number[], fileIds: string[]): Promise<void> {
  await m.query(
    `SELECT 1 FROM drive_file_pending p JOIN unnest($1::int[], $2::text[]) AS k(source_id, file_id) ON p.source_id = k.source_id AND p.file_id = k.file_id
      ORDER BY p.source_id, p.file_id FOR UPDATE OF p`,
    [sourceIds, fileIds],
  );
}

/**
 * The settle store of libs/cloud-drive in PostgreSQL (the SQL its interface
 * describes): any replica may settle any file, and a claim records the
 * emission, the event log row (`received`) and the source's counters in one
 * transaction, so an emission never exists without its event and no version
 * emits twice. The event log row is the outbox: the dispatcher takes rows
 * still `received`.
 */
export class DriveSettleRepository implements SettleStore {
  constructor(private readonly database: PublicApiDatabase) {}

  async observe(sourceId: number, file: DriveFile, now: Date): Promise<ObserveOutcome> {
    const rows = (await this.database.query(
      `WITH emitted AS (
         SELECT 1 FROM drive_file_emissions WHERE source_id = $1 AND file_id = $2 AND version = $3
       ), dropped AS (
         DELETE FROM drive_file_pending WHERE source_id = $1 AND file_id = $2 AND EXISTS (SELECT 1 FROM emitted)
       ), upserted AS (
         INSERT INTO drive_file_pending AS p (source_id, file_id, version, size, stable_since, file)
         SELECT $1, $2, $3, $4, $5, $6 WHERE NOT EXISTS (SELECT 1 FROM emitted)
         ON CONFLICT (source_id, file_id) DO UPDATE SET
           stable_since = CASE WHEN p.version <> EXCLUDED.version OR p.size <> EXCLUDED.size THEN EXCLUDED.stable_since ELSE p.stable_since END,
           version = EXCLUDED.version, size = EXCLUDED.size, file = EXCLUDED.file
         RETURNING (stable_since = $5) AS restarted
       )
       SELECT (SELECT count(*) FROM emitted)::int AS emitted, (SELECT restarted FROM upserted) AS restarted`,
      [sourceId, file.id, file.version, file.size, now, JSON.stringify(file)],
    )) as { emitted: number; restarted: boolean | null }[];
    const row = rows[0];
    if (row && row.emitted > 0) return 'already_emitted';
    return row?.restarted ? 'pending' : 'unchanged';
  }

  /**
   * `observe` for a change page in one statement (`observe`'s rule per
   * file): the files whose version was emitted lose their pending row, the
   * others are upserted, their settle clock restarting only when the
   * version or size differs. Rows are written in file id order, so that two
   * replicas reading the same page lock them in the same order.
   */
  async observeMany(sourceId: number, sightings: ReadonlyArray<{ file: DriveFile; stableSince: Date }>): Promise<Observed[]> {
    if (sightings.length === 0) return [];
    const sorted = [...sightings].sort((a, b) => (a.file.id < b.file.id ? -1 : a.file.id > b.file.id ? 1 : 0));
    const rows = await this.database.transaction(async (m) => {
      await lockPending(
        m,
        sorted.map(() => sourceId),
        sorted.map((s) => s.file.id),
      );
      return (await m.query(
        `WITH f AS (
         SELECT * FROM unnest($2::text[], $3::text[], $4::bigint[], $5::timestamptz[], $6::text[]) WITH ORDINALITY AS f(file_id, version, size, stable_since, file, n)
       ), emitted AS (
         SELECT f.file_id FROM f JOIN drive_file_emissions e ON e.source_id = $1 AND e.file_id = f.file_id AND e.version = f.version
       ), dropped AS (
         DELETE FROM drive_file_pending p USING emitted WHERE p.source_id = $1 AND p.file_id = emitted.file_id
       ), upserted AS (
         INSERT INTO drive_file_pending AS p (source_id, file_id, version, size, stable_since, file)
         SELECT $1, f.file_id, f.version, f.size, f.stable_since, f.file::jsonb FROM f
          WHERE NOT EXISTS (SELECT 1 FROM emitted WHERE emitted.file_id = f.file_id) ORDER BY f.n
         ON CONFLICT (source_id, file_id) DO UPDATE SET
           stable_since = CASE WHEN p.version <> EXCLUDED.version OR p.size <> EXCLUDED.size THEN EXCLUDED.stable_since ELSE p.stable_since END,
           version = EXCLUDED.version, size = EXCLUDED.size, file = EXCLUDED.file
         RETURNING p.file_id, p.stable_since
       )
       SELECT f.file_id, (e.file_id IS NOT NULL) AS emitted, u.stable_since, (u.stable_since = f.stable_since) AS restarted
         FROM f LEFT JOIN emitted e ON e.file_id = f.file_id LEFT JOIN upserted u ON u.file_id = f.file_id`,
        [sourceId, sorted.map((s) => s.file.id), sorted.map((s) => s.file.version), sorted.map((s) => s.file.size), sorted.map((s) => s.stableSince), sorted.map((s) => JSON.stringify(s.file))],
      )) as { file_id: string; emitted: boolean; stable_since: Date | null; restarted: boolean | null }[];
    });
    const byId = new Map(rows.map((r) => [r.file_id, r]));
    return sightings.map(({ file }) => {
      const r = byId.get(file.id);
      if (!r || r.emitted) return { outcome: 'already_emitted', stableSince: null };
      return { outcome: r.restarted ? 'pending' : 'unchanged', stableSince: r.stable_since };
    });
  }

  async due(stableBefore: Date, limit: number): Promise<PendingFile[]> {
    const rows = (await this.database.query(
      `SELECT p.source_id, p.file_id, p.version, p.size, p.stable_since, p.file FROM drive_file_pending p
         JOIN event_sources s ON s.id = p.source_id AND s.is_active
        WHERE p.stable_since <= $1 ORDER BY p.stable_since LIMIT $2`,
      [stableBefore, limit],
    )) as PendingRow[];
    return rows.map(toPending);
  }

  async claim(pending: PendingFile, record: EmissionRecord): Promise<DriveEventType | null> {
    const [type] = await this.claimMany([{ pending, record }]);
    return type ?? null;
  }

  /**
   * `claim` for a whole settle pass in one transaction of two statements:
   * the first removes the pending rows that still hold the claimed version,
   * records their emissions and counts them on their sources (data-modifying
   * CTEs), the second writes their event log rows. The rule per file is
   * `claim`'s; the source's counter row is written once per pass, not once
   * per file, so passes of replicas no longer queue on it file by file.
   */
  async claimMany(claims: ReadonlyArray<{ pending: PendingFile; record: EmissionRecord }>): Promise<Array<DriveEventType | null>> {
    if (claims.length === 0) return [];
    const column = <T>(f: (c: { pending: PendingFile; record: EmissionRecord }) => T): T[] => claims.map(f);
    return this.database.transaction(async (m) => {
      await lockPending(
        m,
        column((c) => c.pending.sourceId),
        column((c) => c.pending.fileId),
      );
      const rows = (await m.query(
        `WITH c AS (
           SELECT * FROM unnest($1::int[], $2::text[], $3::text[], $4::timestamptz[], $5::text[], $6::timestamptz[])
             AS c(source_id, file_id, version, stable_since, event_id, occurred_at)
         ), deleted AS (
           DELETE FROM drive_file_pending p USING c
            WHERE p.source_id = c.source_id AND p.file_id = c.file_id AND p.version = c.version AND p.stable_since = c.stable_since
           RETURNING c.source_id, c.file_id, c.version, c.event_id, c.occurred_at
         ), emitted AS (
           INSERT INTO drive_file_emissions AS e (source_id, file_id, version, event_id, emitted_at)
           SELECT source_id, file_id, version, event_id, occurred_at FROM deleted
           ON CONFLICT (source_id, file_id) DO UPDATE SET version = EXCLUDED.version, event_id = EXCLUDED.event_id, emitted_at = EXCLUDED.emitted_at
             WHERE e.version <> EXCLUDED.version
           RETURNING e.source_id, e.event_id, e.emitted_at, (xmax = 0) AS created
         ), counted AS (
           UPDATE event_sources s SET event_count = s.event_count + n.n, last_event_at = n.last_at
             FROM (SELECT source_id, count(*)::int AS n, max(emitted_at) AS last_at FROM emitted GROUP BY source_id) n
            WHERE s.id = n.source_id
           RETURNING s.id, s.owner_id, s.drive_item_id, s.drive_item_name
         )
         SELECT em.event_id, em.created, co.owner_id, co.drive_item_id, co.drive_item_name FROM emitted em JOIN counted co ON co.id = em.source_id`,
        [
          column((c) => c.pending.sourceId),
          column((c) => c.pending.fileId),
          column((c) => c.pending.version),
          column((c) => c.pending.stableSince),
          column((c) => c.record.eventId),
          column((c) => c.record.occurredAt),
        ],
      )) as { event_id: string; created: boolean; owner_id: number; drive_item_id: string | null; drive_item_name: string | null }[];
      const byEvent = new Map(rows.map((r) => [r.event_id, r]));
      const types: Array<DriveEventType | null> = [];
      const logs: { eventId: string; ownerId: number; sourceId: number; eventType: DriveEventType; payload: string; at: Date }[] = [];
      for (const { pending, record } of claims) {
        const row = byEvent.get(record.eventId);
        const eventType: DriveEventType | null = row ? (row.created ? 'file_created' : 'file_modified') : null;
        types.push(eventType);
        if (!row || !eventType) continue;
        const payload = driveEventPayload(
          { eventId: record.eventId, sourceId: pending.sourceId, eventType, file: pending.file, occurredAt: record.occurredAt },
          { id: pending.sourceId, folderId: row.drive_item_id ?? '', folderName: row.drive_item_name ?? '' },
        );
        logs.push({ eventId: record.eventId, ownerId: row.owner_id, sourceId: pending.sourceId, eventType, payload: JSON.stringify(payload), at: record.occurredAt });
      }
      if (logs.length > 0) {
        await m.query(
          `INSERT INTO event_logs (event_id, owner_id, event_source_id, source_type, event_type, payload, status, received_at)
           SELECT event_id, owner_id, source_id, 'cloud_drive', event_type, payload::jsonb, 'received', received_at
             FROM unnest($1::text[], $2::int[], $3::int[], $4::text[], $5::text[], $6::timestamptz[]) AS l(event_id, owner_id, source_id, event_type, payload, received_at)`,
          [logs.map((l) => l.eventId), logs.map((l) => l.ownerId), logs.map((l) => l.sourceId), logs.map((l) => l.eventType), logs.map((l) => l.payload), logs.map((l) => l.at)],
        );
      }
      return types;
    });
  }

  async drop(sourceId: number, fileId: string): Promise<void> {
    await this.database.query('DELETE FROM drive_file_pending WHERE source_id = $1 AND file_id = $2', [sourceId, fileId]);
  }
}
