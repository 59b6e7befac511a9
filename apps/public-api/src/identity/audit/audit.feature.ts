import type { Request } from 'express';
import { listQueryString, type ListSpec, paginationMeta, parseListQuery } from '@docflow/list-query';
import { currentUser } from '../auth/auth-user';
import type { ApiFeature, PlatformServices } from '../../platform';
import type { AuditRecordEntity } from './audit-record.entity';
import { adminAuditListSpec, AuditRepository, ownAuditListSpec } from './audit.repository';
import { describeAuditRoutes } from './audit.openapi';
import type { AuthGuards } from '../auth/guards';

/** An audit row as the API shows it. */
export interface AuditRecordView {
  id: number;
  action: string;
  actor_user: number | null;
  tenant: string | null;
  correlation_id: string | null;
  details: Record<string, unknown>;
  created_at: string;
  createdAt: string;
  retain_until: string;
}

export function auditRecordView(row: AuditRecordEntity): AuditRecordView {
  const createdAt = row.createdAt.toISOString();
  return {
    id: Number(row.id),
    action: row.action,
    actor_user: row.actorUserId,
    tenant: row.tenant,
    correlation_id: row.correlationId,
    details: row.details,
    created_at: createdAt,
    createdAt,
    retain_until: row.retainUntil.toISOString(),
  };
}

/** Plain query parameters the spec names, read as the Strapi filters they stand for. */
const PLAIN_FILTERS: readonly (readonly [param: string, filter: string])[] = [
  ['action', 'filters[action][$eq]'],
  ['actor_user', 'filters[actor_user][$eq]'],
  ['tenant', 'filters[tenant][$eq]'],
  ['correlation_id', 'filters[correlation_id][$eq]'],
  ['from', 'filters[created_at][$gte]'],
  ['to', 'filters[created_at][$lte]'],
];

/**
 * The list query of a request: the Strapi parameters as given, plus the
 * plain ones (`action=...`, `from=...`) as filters, for those the spec lists
 * and the list spec knows (GET /audit-log/me has no action filter, so a plain
 * `action` is ignored there, as an unknown parameter is).
 */
function auditListQuery(req: Request, spec: ListSpec) {
  const raw = listQueryString(req.originalUrl);
  const params = new URLSearchParams(raw);
  const extra = new URLSearchParams();
  for (const [param, filter] of PLAIN_FILTERS) {
    const field = /^filters\[([^\]]+)\]/.exec(filter)?.[1] ?? '';
    for (const value of params.getAll(param)) if (spec.fields.has(field)) extra.append(filter, value);
  }
  const merged = [raw, extra.toString()].filter((s) => s.length > 0).join('&');
  return parseListQuery(merged, spec);
}

/** GET /admin/audit-log (super administrator) and GET /audit-log/me (spec 4.14). */
export const auditFeature: ApiFeature<Pick<PlatformServices, 'database' | 'openapi'> & { auth: AuthGuards }> = {
  name: 'audit',
  register(api, ctx) {
    const repo = new AuditRepository(ctx.database);

    api.get('/admin/audit-log', ctx.auth.requireAuth, ctx.auth.requireRole('super_admin'), async (req, res) => {
      const q = auditListQuery(req, adminAuditListSpec);
      const { rows, total } = await repo.list(q);
      res.json({ data: rows.map(auditRecordView), meta: { pagination: paginationMeta(q.pagination, total) } });
    });

    api.get('/audit-log/me', ctx.auth.requireAuth, async (req, res) => {
      const q = auditListQuery(req, ownAuditListSpec);
      const { rows, total } = await repo.list(q, currentUser(req).id);
      res.json({ data: rows.map(auditRecordView), meta: { pagination: paginationMeta(q.pagination, total) } });
    });

    describeAuditRoutes(ctx.openapi);
  },
};
