import type { PageTokenStore } from '@docflow/cloud-drive';
import { In, type Repository } from 'typeorm';
import type { PublicApiDatabase } from '../../platform';
import { EventSourceEntity } from './event-bus.entity';

export type NewEventSource = Pick<EventSourceEntity, 'ownerId' | 'name' | 'sourceType' | 'config' | 'driveItemId' | 'driveItemType' | 'driveItemName' | 'pageToken' | 'isActive' | 'errorMessage'>;

/** A watch as stored on its source (spec 2.16 `watch_*`). */
export interface StoredWatch {
  channelId: string;
  channelToken: string;
  resourceId: string;
  expiresAt: Date;
}

/** Event sources (spec 2.16) and their drive cursors: the page token is the SourceChangeReader's PageTokenStore. */
export class EventSourcesRepository implements PageTokenStore {
  private readonly repo: Repository<EventSourceEntity>;

  constructor(private readonly database: PublicApiDatabase) {
    this.repo = database.getRepository(EventSourceEntity);
  }

  insert(source: NewEventSource): Promise<EventSourceEntity> {
    return this.repo.save(this.repo.create({ ...source, eventCount: 0 }));
  }

  listOwned(ownerId: number): Promise<EventSourceEntity[]> {
    return this.repo.find({ where: { ownerId }, order: { id: 'ASC' } });
  }

  findOwned(id: number, ownerId: number): Promise<EventSourceEntity | null> {
    return this.repo.findOne({ where: { id, ownerId } });
  }

  findById(id: number): Promise<EventSourceEntity | null> {
    return this.repo.findOne({ where: { id } });
  }

  /** The sources of these ids that still exist (one query for a dispatch batch). */
  findByIds(ids: number[]): Promise<EventSourceEntity[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.repo.find({ where: { id: In(ids) } });
  }

  findByChannel(channelId: string): Promise<EventSourceEntity | null> {
    return this.repo.findOne({ where: { watchChannelId: channelId } });
  }

  /** Active sources of a type (each process opens its in-process watches and mailboxes from these). */
  listActive(sourceType: EventSourceEntity['sourceType']): Promise<EventSourceEntity[]> {
    return this.repo.find({ where: { sourceType, isActive: true }, order: { id: 'ASC' } });
  }

  async delete(id: number, ownerId: number): Promise<boolean> {
    return ((await this.repo.delete({ id, ownerId })).affected ?? 0) > 0;
  }

  async savePageToken(sourceId: number, pageToken: string): Promise<void> {
    await this.database.query('UPDATE event_sources SET page_token = $2 WHERE id = $1', [sourceId, pageToken]);
  }

  /** A new watch is live: the source is active, with no error. */
  async saveWatch(id: number, watch: StoredWatch): Promise<void> {
    await this.database.query(
      `UPDATE event_sources SET watch_channel_id = $2, watch_channel_token = $3, watch_resource_id = $4, watch_expiry = $5,
              is_active = true, error_message = NULL, updated_at = now() WHERE id = $1`,
      [id, watch.channelId, watch.channelToken, watch.resourceId, watch.expiresAt],
    );
  }

  async activate(id: number): Promise<void> {
    await this.database.query('UPDATE event_sources SET is_active = true, error_message = NULL, updated_at = now() WHERE id = $1', [id]);
  }

  /** Spec 3.6: renewal failure or a revoked grant sets `is_active` false with `error_message`. */
  async deactivate(id: number, message: string): Promise<void> {
    await this.database.query('UPDATE event_sources SET is_active = false, error_message = $2, read_after = NULL, updated_at = now() WHERE id = $1', [id, message.slice(0, 2000)]);
  }

  /** Every active drive source of the owner (a revoked or disconnected grant). */
  async deactivateOwnerDrives(ownerId: number, message: string): Promise<number[]> {
    const [rows] = (await this.database.query(
      `UPDATE event_sources SET is_active = false, error_message = $2, read_after = NULL, updated_at = now()
        WHERE owner_id = $1 AND source_type = 'cloud_drive' AND is_active RETURNING id`,
      [ownerId, message.slice(0, 2000)],
    )) as [{ id: number }[], number];
    return rows.map((r) => r.id);
  }

  /** A drive outage: read again from the saved page token after `at` (the tick does). */
  async readLater(id: number, at: Date, message: string): Promise<void> {
    await this.database.query('UPDATE event_sources SET read_after = $2, error_message = $3 WHERE id = $1', [id, at, message.slice(0, 2000)]);
  }

  /** The read went through: the outage note goes. */
  async readDone(id: number): Promise<void> {
    await this.database.query('UPDATE event_sources SET read_after = NULL, error_message = NULL WHERE id = $1 AND (read_after IS NOT NULL OR (error_message IS NOT NULL AND is_active))', [id]);
  }

  /**
   * Takes (SKIP LOCKED, one replica each) the active drive sources whose
   * watch expires before `renewBefore` and pushes their expiry back by
   * `leaseMs` so that no other tick takes them while they renew.
   */
  claimRenewals(renewBefore: Date, leaseMs: number, limit: number): Promise<EventSourceEntity[]> {
    return this.claim(
      `is_active AND source_type = 'cloud_drive' AND watch_expiry IS NOT NULL AND watch_expiry <= $1`,
      [renewBefore],
      'watch_expiry',
      'watch_expiry = watch_expiry + make_interval(secs => $1::double precision)',
      [leaseMs / 1000],
      limit,
    );
  }

  /** Takes the sources whose read after an outage is due, clearing `read_after`. */
  claimDueReads(now: Date, limit: number): Promise<EventSourceEntity[]> {
    return this.claim('is_active AND read_after IS NOT NULL AND read_after <= $1', [now], 'read_after', 'read_after = NULL', [], limit);
  }

  private async claim(where: string, whereParams: unknown[], order: string, set: string, setParams: unknown[], limit: number): Promise<EventSourceEntity[]> {
    const ids = (await this.database.transaction(async (m) => {
      const rows = (await m.query(`SELECT id FROM event_sources WHERE ${where} ORDER BY ${order} LIMIT ${Number(limit)} FOR UPDATE SKIP LOCKED`, whereParams)) as { id: number }[];
      if (rows.length === 0) return [];
      const list = rows.map((r) => r.id);
      await m.query(`UPDATE event_sources SET ${set} WHERE id = ANY($${setParams.length + 1})`, [...setParams, list]);
      return list;
    })) as number[];
    if (ids.length === 0) return [];
    return this.repo.createQueryBuilder('s').where('s.id IN (:...ids)', { ids }).orderBy('s.id').getMany();
  }
}
