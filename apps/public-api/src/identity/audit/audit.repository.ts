import { applyListQuery, defineListSpec, type ListQuery } from '@docflow/list-query';
import { pruneInBatches } from '@docflow/persistence';
import type { PublicApiDatabase } from '../../platform';
import { AuditRecordEntity } from './audit-record.entity';

const FIELDS = {
  id: { column: '"a"."id"', type: 'bigint' },
  action: { column: '"a"."action"', type: 'string' },
  actor_user: { column: '"a"."actor_user_id"', type: 'integer' },
  tenant: { column: '"a"."tenant"', type: 'string' },
  correlation_id: { column: '"a"."correlation_id"', type: 'string' },
  created_at: { column: '"a"."created_at"', type: 'date' },
  createdAt: { column: '"a"."created_at"', type: 'date' },
} as const;

const NEWEST_FIRST = [{ field: 'created_at', direction: 'desc' }] as const;

/** GET /admin/audit-log: every field filters and sorts. */
export const adminAuditListSpec = defineListSpec({ fields: FIELDS, defaultSort: NEWEST_FIRST });

/** GET /audit-log/me: the caller's rows, with no action filter (spec 4.14). */
const { action: _action, ...mineFields } = FIELDS;
export const ownAuditListSpec = defineListSpec({ fields: mineFields, defaultSort: NEWEST_FIRST });

/** One audit row as written. */
export interface AuditRow {
  action: string;
  actorUserId: number | null;
  tenant: string | null;
  correlationId: string | null;
  /** JSON text of the redacted details. */
  details: string;
  createdAt: Date;
  retainUntil: Date;
}

/** All rows of one batch in one statement, whatever their number: the arrays are unnested server-side. */
const INSERT = `INSERT INTO audit_log (action, actor_user_id, tenant, correlation_id, details, created_at, retain_until)
  SELECT * FROM unnest($1::varchar[], $2::int[], $3::varchar[], $4::varchar[], $5::jsonb[], $6::timestamptz[], $7::timestamptz[])`;

/** One repeated failure, counted in its subject's current window (aligned to the epoch, by the database's clock). */
const COUNT_REPEATED = `INSERT INTO audit_aggregates AS a (action, subject, window_start, window_end, count, actor_user_id, correlation_id, details)
  SELECT $1, $2, w.start, w.start + make_interval(secs => $3), 1, $4, $5, $6::jsonb
    FROM (SELECT date_bin(make_interval(secs => $3), now(), timestamptz 'epoch') AS start) w
  ON CONFLICT (action, subject, window_start) DO UPDATE SET count = a.count + 1`;

/** Moves every ended window into the audit log as one row with its count, in one statement (so two processes never write a window twice). */
const CLOSE_WINDOWS = `WITH closed AS (DELETE FROM audit_aggregates WHERE window_end <= now() RETURNING *)
  INSERT INTO audit_log (action, actor_user_id, tenant, correlation_id, details, created_at, retain_until)
  SELECT action, actor_user_id, NULL, correlation_id,
         details || jsonb_build_object('count', count, 'window_start', window_start, 'window_end', window_end),
         now(), now() + make_interval(days => $1)
    FROM closed
  RETURNING id`;

/** A failure counted per subject and window instead of one row each (see AuditLog.recordRepeated). */
export interface RepeatedRow {
  action: string;
  subject: string;
  windowSeconds: number;
  actorUserId: number | null;
  correlationId: string | null;
  /** JSON text of the redacted details. */
  details: string;
}

/**
 * A timestamptz[] parameter written as its array literal text, `{2026-01-02T03:04:05.678Z,...}` (an ISO instant
 * needs no quoting there): node-postgres would format each Date in local time from a dozen small strings and
 * then quote and escape it, the most of what a batch of audit rows allocated (three rows per webhook execution).
 */
export function timestampArray<T>(rows: readonly T[], at: (row: T) => Date): string {
  let text = '{';
  for (let i = 0; i < rows.length; i++) text += (i === 0 ? '' : ',') + at(rows[i]!).toISOString();
  return `${text}}`;
}

export class AuditRepository {
  constructor(private readonly database: PublicApiDatabase) {}

  async countRepeated(r: RepeatedRow): Promise<void> {
    await this.database.query(COUNT_REPEATED, [r.action, r.subject, r.windowSeconds, r.actorUserId, r.correlationId, r.details]);
  }

  /** Writes one row per ended window of repeated failures; returns how many. */
  async closeWindows(retentionDays: number): Promise<number> {
    const rows = (await this.database.query(CLOSE_WINDOWS, [retentionDays])) as unknown[];
    return rows.length;
  }

  async insertBatch(batch: readonly AuditRow[]): Promise<void> {
    await this.database.query(INSERT, [
      batch.map((r) => r.action),
      batch.map((r) => r.actorUserId),
      batch.map((r) => r.tenant),
      batch.map((r) => r.correlationId),
      batch.map((r) => r.details),
      timestampArray(batch, (r) => r.createdAt),
      timestampArray(batch, (r) => r.retainUntil),
    ]);
  }

  /**
   * Deletes rows whose retention has ended (the table's trigger allows only
   * those), 1000 per statement so that the table is never locked for long
   * (issue #15 item 5); returns how many.
   */
  async purgeExpired(): Promise<number> {
    // The database's clock, as the trigger's: a row it would refuse is never asked for.
    return pruneInBatches(async (limit) => {
      const result = (await this.database.query(
        `DELETE FROM audit_log WHERE id = ANY(ARRAY(
           SELECT id FROM audit_log WHERE retain_until <= now() ORDER BY retain_until LIMIT $1 FOR UPDATE SKIP LOCKED))`,
        [limit],
      )) as [unknown[], number];
      return result[1];
    });
  }

  /** Rows matching the query; only `actorUserId`'s when given. */
  async list(q: ListQuery, actorUserId?: number): Promise<{ rows: AuditRecordEntity[]; total: number }> {
    let qb = this.database.getRepository(AuditRecordEntity).createQueryBuilder('a');
    if (actorUserId !== undefined) qb = qb.where('"a"."actor_user_id" = :actorUserId', { actorUserId });
    const [rows, total] = await applyListQuery(qb, q).getManyAndCount();
    return { rows, total };
  }
}
