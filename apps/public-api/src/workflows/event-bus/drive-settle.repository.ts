import { driveEventPayload, type DriveEventType, type DriveFile, type EmissionRecord, type ObserveOutcome, type PendingFile, type SettleStore } from '@docflow/cloud-drive';
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

  async due(stableBefore: Date, limit: number): Promise<PendingFile[]> {
    const rows = (await this.database.query(
      `SELECT p.source_id, p.file_id, p.version, p.size, p.stable_since, p.file FROM drive_file_pending p
         JOIN event_sources s ON s.id = p.source_id AND s.is_active
        WHERE p.stable_since <= $1 ORDER BY p.stable_since LIMIT $2`,
      [stableBefore, limit],
    )) as PendingRow[];
    return rows.map(toPending);
  }

  claim(pending: PendingFile, record: EmissionRecord): Promise<DriveEventType | null> {
    return this.database.transaction(async (m) => {
      const [, deleted] = (await m.query('DELETE FROM drive_file_pending WHERE source_id = $1 AND file_id = $2 AND version = $3 AND stable_since = $4', [
        pending.sourceId,
        pending.fileId,
        pending.version,
        pending.stableSince,
      ])) as [unknown, number];
      if (!deleted) return null;
      const emitted = (await m.query(
        `INSERT INTO drive_file_emissions AS e (source_id, file_id, version, event_id, emitted_at) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (source_id, file_id) DO UPDATE SET version = EXCLUDED.version, event_id = EXCLUDED.event_id, emitted_at = EXCLUDED.emitted_at
           WHERE e.version <> EXCLUDED.version
         RETURNING (xmax = 0) AS created`,
        [pending.sourceId, pending.fileId, pending.version, record.eventId, record.occurredAt],
      )) as { created: boolean }[];
      const first = emitted[0];
      if (!first) return null;
      const eventType: DriveEventType = first.created ? 'file_created' : 'file_modified';
      const sources = (await m.query(
        `UPDATE event_sources SET event_count = event_count + 1, last_event_at = $2 WHERE id = $1
         RETURNING owner_id, drive_item_id, drive_item_name`,
        [pending.sourceId, record.occurredAt],
      )) as [{ owner_id: number; drive_item_id: string | null; drive_item_name: string | null }[], number];
      const source = sources[0][0];
      if (!source) return null;
      const payload = driveEventPayload(
        { eventId: record.eventId, sourceId: pending.sourceId, eventType, file: pending.file, occurredAt: record.occurredAt },
        { id: pending.sourceId, folderId: source.drive_item_id ?? '', folderName: source.drive_item_name ?? '' },
      );
      await m.query(
        `INSERT INTO event_logs (event_id, owner_id, event_source_id, source_type, event_type, payload, status, received_at)
         VALUES ($1, $2, $3, 'cloud_drive', $4, $5, 'received', $6)`,
        [record.eventId, source.owner_id, pending.sourceId, eventType, JSON.stringify(payload), record.occurredAt],
      );
      return eventType;
    });
  }

  async drop(sourceId: number, fileId: string): Promise<void> {
    await this.database.query('DELETE FROM drive_file_pending WHERE source_id = $1 AND file_id = $2', [sourceId, fileId]);
  }
}
