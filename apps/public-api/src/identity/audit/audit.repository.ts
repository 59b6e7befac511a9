import { applyListQuery, defineListSpec, type ListQuery } from '@docflow/list-query';
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

export class AuditRepository {
  constructor(private readonly database: PublicApiDatabase) {}

  async insertBatch(batch: readonly AuditRow[]): Promise<void> {
    await this.database.query(INSERT, [
      batch.map((r) => r.action),
      batch.map((r) => r.actorUserId),
      batch.map((r) => r.tenant),
      batch.map((r) => r.correlationId),
      batch.map((r) => r.details),
      batch.map((r) => r.createdAt),
      batch.map((r) => r.retainUntil),
    ]);
  }

  /** Deletes rows whose retention has ended (the table's trigger allows only those); returns how many. */
  async purgeExpired(): Promise<number> {
    // The database's clock, as the trigger's: a row it would refuse is never asked for.
    const result = await this.database.createQueryBuilder().delete().from(AuditRecordEntity).where('retain_until <= now()').execute();
    return result.affected ?? 0;
  }

  /** Rows matching the query; only `actorUserId`'s when given. */
  async list(q: ListQuery, actorUserId?: number): Promise<{ rows: AuditRecordEntity[]; total: number }> {
    let qb = this.database.getRepository(AuditRecordEntity).createQueryBuilder('a');
    if (actorUserId !== undefined) qb = qb.where('"a"."actor_user_id" = :actorUserId', { actorUserId });
    const [rows, total] = await applyListQuery(qb, q).getManyAndCount();
    return { rows, total };
  }
}
