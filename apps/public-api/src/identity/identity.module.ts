import type { MountableFeature, PlatformServices } from '../platform';
import { bindFeature } from '../platform';
import { AuditLog } from './audit/audit-log';
import { auditFeature } from './audit/audit.feature';
import { createAuthFeature } from './auth/auth.feature';
import type { AuthGuards } from './auth/guards';
import type { PrincipalCache } from './auth/principal-cache';
import { credentialsFeature } from './credentials/credentials.feature';
import { quotasFeature } from './quotas/quotas.feature';
import { QuotasRepository } from './quotas/quotas.repository';
import { QuotasService } from './quotas/quotas.service';
import { usersFeature } from './users/users.feature';
import { UsersRepository } from './users/users.repository';
import { UsersService } from './users/users.service';

export interface IdentityModuleDeps extends Pick<PlatformServices, 'config' | 'database' | 'logger' | 'metrics' | 'mailer' | 'openapi' | 'limits'> {
  /** The audit log's writer (main's, closed before the database); default: one of this module's own. */
  audit?: AuditLog;
  /** Quotas (main's, shared with the execution use cases); default: this module's own. */
  quotas?: QuotasService;
}

const MB = 1024 * 1024;

/** Quotas with the configured defaults: STORAGE_QUOTA_MB, EXECUTION_QUOTA_MONTHLY and LLM_COST_QUOTA_MONTHLY_CENTS (0: no limit). */
export function createQuotasService(deps: Pick<PlatformServices, 'config' | 'database' | 'logger' | 'mailer'> & { audit: AuditLog }): QuotasService {
  const { config } = deps;
  return new QuotasService({
    repo: new QuotasRepository(deps.database),
    defaults: {
      storageBytes: config.STORAGE_QUOTA_MB * MB,
      executionsMonthly: config.EXECUTION_QUOTA_MONTHLY || null,
      llmCostMonthly: config.LLM_COST_QUOTA_MONTHLY_CENTS ? config.LLM_COST_QUOTA_MONTHLY_CENTS / 100 : null,
    },
    audit: deps.audit,
    mailer: deps.mailer,
    logger: deps.logger.child({ component: 'quotas' }),
  });
}

/** What the other modules use of identity. */
export interface IdentityServices {
  users: UsersService;
  auth: AuthGuards;
  /** Audited actions (spec 2.19); record() never throws or waits. */
  audit: AuditLog;
  /** Storage, monthly execution and monthly LLM cost quotas; their 80 % warnings go out by mail. */
  quotas: QuotasService;
}

export interface IdentityModule extends IdentityServices {
  features: { auth: MountableFeature; users: MountableFeature; audit: MountableFeature; credentials: MountableFeature; quotas: MountableFeature };
  /** Authenticated principals; main turns the cache on while it listens for auth changes. */
  principals: PrincipalCache;
}

/** Authentication, users, the audit log and credentials over one database. */
export function createIdentityModule(deps: IdentityModuleDeps): IdentityModule {
  const users = new UsersService(new UsersRepository(deps.database));
  const audit = deps.audit ?? new AuditLog({ database: deps.database, logger: deps.logger, metrics: deps.metrics, retentionDays: deps.config.AUDIT_LOG_RETENTION_DAYS });
  const auth = createAuthFeature({ config: deps.config, database: deps.database, users, mailer: deps.mailer, logger: deps.logger, metrics: deps.metrics, audit, limits: deps.limits });
  const quotas = deps.quotas ?? createQuotasService({ ...deps, audit });
  const needs = { config: deps.config, database: deps.database, openapi: deps.openapi, auth: auth.guards, audit, quotas };
  return {
    users,
    auth: auth.guards,
    audit,
    quotas,
    principals: auth.principals,
    features: {
      auth: bindFeature(auth.feature, needs),
      users: bindFeature(usersFeature, needs),
      audit: bindFeature(auditFeature, needs),
      credentials: bindFeature(credentialsFeature, needs),
      quotas: bindFeature(quotasFeature, needs),
    },
  };
}
