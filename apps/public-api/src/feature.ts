import type { Router } from 'express';
import type { Mailer } from '@docflow/mail';
import type { Logger, Metrics } from '@docflow/service-kit';
import type { AuditLog } from './audit/audit-log';
import type { AuthGuards } from './auth/guards';
import type { PublicApiConfig } from './config';
import type { PublicApiDatabase } from './data-source';
import type { OpenApiRegistry } from './openapi/registry';
import type { RateLimits } from './rate-limits/rate-limits';
import type { UsersService } from './users/users.service';
import type { ExecutionServices } from './workflow-executions/workflow-executions.feature';

/** What every feature of the public API may use. */
export interface ApiContext {
  config: PublicApiConfig;
  logger: Logger;
  metrics: Metrics;
  database: PublicApiDatabase;
  mailer: Mailer;
  users: UsersService;
  auth: AuthGuards;
  openapi: OpenApiRegistry;
  /** Audited actions (spec 2.19); record() never throws or waits. */
  audit: AuditLog;
  /** Execution use cases (one router client for every feature that starts runs). */
  executions: ExecutionServices;
  /** Rate limits and throttles, counted in the store every process shares. */
  limits: RateLimits;
}

/**
 * One feature of the public API (auth, users, documents, ...). `register`
 * mounts its routes on the router served under /api (paths relative to
 * /api) and describes each of them in `ctx.openapi`; a test fails when a
 * mounted route is missing from the document.
 */
export interface ApiFeature {
  name: string;
  register(api: Router, ctx: ApiContext): void;
}
