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

export class AuditRepository {
  constructor(private readonly database: PublicApiDatabase) {}

  /** Rows matching the query; only `actorUserId`'s when given. */
  async list(q: ListQuery, actorUserId?: number): Promise<{ rows: AuditRecordEntity[]; total: number }> {
    let qb = this.database.getRepository(AuditRecordEntity).createQueryBuilder('a');
    if (actorUserId !== undefined) qb = qb.where('"a"."actor_user_id" = :actorUserId', { actorUserId });
    const [rows, total] = await applyListQuery(qb, q).getManyAndCount();
    return { rows, total };
  }
}
