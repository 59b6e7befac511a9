import type { Repository } from 'typeorm';
import { entityFromRow, type PgTransaction } from '@docflow/persistence';
import type { PublicApiDatabase } from '../../platform';
import { EventLogEntity, type EventLogStatus, type SourceType, type TriggeredWorkflow } from './event-bus.entity';

export interface EventLogListQuery {
  limit: number;
  offset: number;
  sourceId?: number;
}

export interface EventLogRow {
  log: EventLogEntity;
  driveItemName: string | null;
}

export interface NewEvent {
  eventId: string;
  ownerId: number;
  sourceId: number;
  sourceType: SourceType;
  eventType: string;
  payload: Record<string, unknown>;
  receivedAt: Date;
}

export type FinalStatus = Extract<EventLogStatus, 'processed' | 'ignored' | 'failed'>;

/** An event's final state, written with the others of its batch. */
export interface FinishedEvent {
  id: number;
  status: FinalStatus;
  matched: number;
  triggered: TriggeredWorkflow[];
  errorMessage: string | null;
}

/** One (event, subscription) run: its execution id once it was created, null before. */
export interface TriggerClaim {
  eventLogId: number;
  subscriptionId: number;
  executionId: number | null;
  /** Inserted by this claim: no earlier attempt got this far. */
  fresh: boolean;
}

/** The event log (spec 4.10, 6) and the runs each event started. */
export class EventLogsRepository {
  private readonly repo: Repository<EventLogEntity>;

  constructor(private readonly database: PublicApiDatabase) {
    this.repo = database.getRepository(EventLogEntity);
  }

  /** Records an event once per event id (a message read twice gives one row); false when it was there already. */
  async insertOnce(event: NewEvent): Promise<boolean> {
    return this.database.transaction(async (m) => {
      const rows = (await m.query(
        `INSERT INTO event_logs (event_id, owner_id, event_source_id, source_type, event_type, payload, status, received_at)
         VALUES ($1, $2, $3, $4, $5, $6, 'received', $7) ON CONFLICT (event_id) DO NOTHING RETURNING id`,
        [event.eventId, event.ownerId, event.sourceId, event.sourceType, event.eventType, JSON.stringify(event.payload), event.receivedAt],
      )) as { id: number }[];
      if (rows.length === 0) return false;
      await m.query('UPDATE event_sources SET event_count = event_count + 1, last_event_at = $2 WHERE id = $1', [event.sourceId, event.receivedAt]);
      return true;
    });
  }

  async list(ownerId: number, q: EventLogListQuery): Promise<{ rows: EventLogRow[]; total: number }> {
    const qb = this.repo
      .createQueryBuilder('l')
      .leftJoin('event_sources', 's', 's.id = l.event_source_id')
      .addSelect('s.drive_item_name', 'drive_item_name')
      .where('l.owner_id = :ownerId', { ownerId });
    if (q.sourceId !== undefined) qb.andWhere('l.event_source_id = :sourceId', { sourceId: q.sourceId });
    const total = await qb.getCount();
    const { entities, raw } = await qb.orderBy('l.received_at', 'DESC').addOrderBy('l.id', 'DESC').offset(q.offset).limit(q.limit).getRawAndEntities();
    const names = raw as { drive_item_name: string | null }[];
    return { rows: entities.map((log, i) => ({ log, driveItemName: names[i]?.drive_item_name ?? null })), total };
  }

  recent(ownerId: number, limit: number): Promise<EventLogEntity[]> {
    return this.repo.find({ where: { ownerId }, order: { receivedAt: 'DESC', id: 'DESC' }, take: limit });
  }

  findByEventId(eventId: string): Promise<EventLogEntity | null> {
    return this.repo.findOne({ where: { eventId } });
  }

  /**
   * Takes an event for dispatch: `received`, or `processing` whose lease ran
   * out (the process that held it died or asked to retry later). Atomic, so
   * one process dispatches it at a time.
   */
  async claim(eventId: string, leaseMs: number): Promise<EventLogEntity | null> {
    const [rows] = (await this.database.query(
      `UPDATE event_logs SET status = 'processing', attempts = attempts + 1, lease_until = now() + make_interval(secs => $2::double precision)
        WHERE event_id = $1 AND (status = 'received' OR (status = 'processing' AND lease_until < now()))
        RETURNING *`,
      [eventId, leaseMs / 1000],
    )) as [Record<string, unknown>[], number];
    const row = rows[0];
    return row ? entityFromRow(this.repo, row) : null;
  }

  /** `claim` for many events in one statement: those still open, each taken once across processes. */
  async claimMany(eventIds: string[], leaseMs: number): Promise<EventLogEntity[]> {
    if (eventIds.length === 0) return [];
    const [rows] = (await this.database.query(
      `UPDATE event_logs SET status = 'processing', attempts = attempts + 1, lease_until = now() + make_interval(secs => $2::double precision)
        WHERE event_id = ANY($1::text[]) AND (status = 'received' OR (status = 'processing' AND lease_until < now()))
        RETURNING *`,
      [eventIds, leaseMs / 1000],
    )) as [Record<string, unknown>[], number];
    return rows.map((row) => entityFromRow(this.repo, row)).sort((a, b) => a.id - b.id);
  }

  /** `finish` for many events in one statement. */
  async finishMany(events: FinishedEvent[]): Promise<void> {
    if (events.length === 0) return;
    await this.database.query(
      `UPDATE event_logs l SET status = f.status, subscriptions_matched = f.matched, workflows_triggered = f.triggered::jsonb, error_message = f.error_message,
              lease_until = NULL, processed_at = now()
         FROM unnest($1::int[], $2::text[], $3::int[], $4::text[], $5::text[]) AS f(id, status, matched, triggered, error_message)
        WHERE l.id = f.id`,
      [events.map((e) => e.id), events.map((e) => e.status), events.map((e) => e.matched), events.map((e) => JSON.stringify(e.triggered)), events.map((e) => e.errorMessage?.slice(0, 2000) ?? null)],
    );
  }

  async finish(id: number, status: FinalStatus, matched: number, triggered: TriggeredWorkflow[], errorMessage: string | null): Promise<void> {
    await this.database.query(`UPDATE event_logs SET status = $2, subscriptions_matched = $3, workflows_triggered = $4, error_message = $5, lease_until = NULL, processed_at = now() WHERE id = $1`, [
      id,
      status,
      matched,
      JSON.stringify(triggered),
      errorMessage?.slice(0, 2000) ?? null,
    ]);
  }

  /** Keeps the event `processing` until `retryAt`, when a tick takes it again. */
  async retryLater(id: number, retryAt: Date, matched: number, triggered: TriggeredWorkflow[], errorMessage: string): Promise<void> {
    await this.database.query('UPDATE event_logs SET lease_until = $2, subscriptions_matched = $3, workflows_triggered = $4, error_message = $5 WHERE id = $1', [
      id,
      retryAt,
      matched,
      JSON.stringify(triggered),
      errorMessage.slice(0, 2000),
    ]);
  }

  /** Events left behind: `received` for longer than `receivedBefore` allows, or `processing` past their lease. */
  async openEventIds(receivedBefore: Date, limit: number): Promise<string[]> {
    const rows = (await this.database.query(
      `SELECT event_id FROM event_logs
        WHERE (status = 'received' AND received_at <= $1) OR (status = 'processing' AND lease_until < now())
        ORDER BY received_at LIMIT $2`,
      [receivedBefore, limit],
    )) as { event_id: string }[];
    return rows.map((r) => r.event_id);
  }

  /** The run of this event for this subscription: its execution id when it started, null when it is ours to start now. */
  async triggerClaim(eventLogId: number, subscriptionId: number): Promise<{ executionId: number | null; fresh: boolean }> {
    const inserted = (await this.database.query('INSERT INTO event_triggers (event_log_id, subscription_id) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING execution_id', [
      eventLogId,
      subscriptionId,
    ])) as unknown[];
    if (inserted.length > 0) return { executionId: null, fresh: true };
    const rows = (await this.database.query('SELECT execution_id FROM event_triggers WHERE event_log_id = $1 AND subscription_id = $2', [eventLogId, subscriptionId])) as {
      execution_id: number | null;
    }[];
    return { executionId: rows[0]?.execution_id ?? null, fresh: false };
  }

  /**
   * `triggerClaim` for many (event, subscription) pairs: one insert, and one
   * read of the pairs an earlier attempt claimed already.
   */
  async triggerClaimMany(pairs: { eventLogId: number; subscriptionId: number }[]): Promise<TriggerClaim[]> {
    if (pairs.length === 0) return [];
    const logIds = pairs.map((p) => p.eventLogId);
    const subscriptionIds = pairs.map((p) => p.subscriptionId);
    const inserted = (await this.database.query(
      `INSERT INTO event_triggers (event_log_id, subscription_id) SELECT * FROM unnest($1::int[], $2::int[]) ON CONFLICT DO NOTHING RETURNING event_log_id, subscription_id`,
      [logIds, subscriptionIds],
    )) as { event_log_id: number; subscription_id: number }[];
    const key = (logId: number, subscriptionId: number) => `${logId}:${subscriptionId}`;
    const fresh = new Set(inserted.map((r) => key(r.event_log_id, r.subscription_id)));
    const earlier = new Map<string, number | null>();
    if (fresh.size < pairs.length) {
      const rest = pairs.filter((p) => !fresh.has(key(p.eventLogId, p.subscriptionId)));
      const rows = (await this.database.query(
        `SELECT t.event_log_id, t.subscription_id, t.execution_id FROM event_triggers t
           JOIN unnest($1::int[], $2::int[]) AS p(event_log_id, subscription_id) ON p.event_log_id = t.event_log_id AND p.subscription_id = t.subscription_id`,
        [rest.map((p) => p.eventLogId), rest.map((p) => p.subscriptionId)],
      )) as { event_log_id: number; subscription_id: number; execution_id: number | null }[];
      for (const r of rows) earlier.set(key(r.event_log_id, r.subscription_id), r.execution_id);
    }
    return pairs.map((p) => {
      const k = key(p.eventLogId, p.subscriptionId);
      return { ...p, executionId: fresh.has(k) ? null : (earlier.get(k) ?? null), fresh: fresh.has(k) };
    });
  }

  /**
   * Records the executions of many runs in their claims, inside the
   * transaction that creates those executions (so a run's execution and its
   * record commit together): one statement. Only a claim still without an
   * execution is written.
   */
  async triggersStartedIn(tx: PgTransaction, runs: readonly { eventLogId: number; subscriptionId: number; executionId: number }[]): Promise<void> {
    if (runs.length === 0) return;
    const result = await tx.query(
      `UPDATE event_triggers t SET execution_id = r.execution_id
         FROM unnest($1::int[], $2::int[], $3::int[]) AS r(event_log_id, subscription_id, execution_id)
        WHERE t.event_log_id = r.event_log_id AND t.subscription_id = r.subscription_id AND t.execution_id IS NULL
       RETURNING 1`,
      [runs.map((r) => r.eventLogId), runs.map((r) => r.subscriptionId), runs.map((r) => r.executionId)],
    );
    // A claim taken by another attempt meanwhile: roll back, so no execution is left unrecorded.
    if (result.rows.length !== runs.length) throw new Error(`${runs.length - result.rows.length} of ${runs.length} event triggers were no longer open`);
  }

  /** A start that failed before an execution existed may be tried again. */
  async triggerReleased(eventLogId: number, subscriptionId: number): Promise<void> {
    await this.database.query('DELETE FROM event_triggers WHERE event_log_id = $1 AND subscription_id = $2 AND execution_id IS NULL', [eventLogId, subscriptionId]);
  }
}
