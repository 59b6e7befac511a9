import type { Counter } from 'prom-client';
import type { Logger, LogMeta, Metrics } from '@docflow/service-kit';
import type { AuditLog } from '../audit/audit-log';

export type AuthEvent =
  | 'login_succeeded'
  | 'login_failed'
  | 'login_throttled'
  | 'logout'
  | 'token_rejected'
  | 'step_up_requested'
  | 'step_up_mail_failed'
  | 'step_up_verified'
  | 'step_up_failed'
  | 'step_up_locked'
  | 'step_up_rejected'
  | 'step_up_throttled'
  | 'step_up_required';

/**
 * Authentication events: each is counted for Prometheus
 * (`public_api_auth_events_total{event}`); the audited ones (logins,
 * logouts, step-up) are also logged and written to the audit log under
 * their spec action (`auth.login`, `auth.logout`, `auth.step_up.*`).
 */
export class AuthEvents {
  private readonly counter: Counter<'event'>;

  constructor(
    metrics: Metrics,
    private readonly logger: Logger,
    private readonly audit: AuditLog,
  ) {
    const name = 'public_api_auth_events_total';
    const existing = metrics.registry.getSingleMetric(name) as Counter<'event'> | undefined;
    this.counter = existing ?? metrics.counter(name, 'Authentication events by kind', ['event']);
  }

  record(event: AuthEvent): void {
    this.counter.inc({ event });
  }

  /** Counts `event`, logs `action` at `level` and writes its audit row; `details` hold no personal data beyond ids. */
  audited(event: AuthEvent, action: string, userId: number | undefined, details: LogMeta = {}, level: 'info' | 'warn' | 'error' = 'info'): void {
    this.record(event);
    this.logger[level](action, { action, userId, ...details });
    this.audit.record({ action, actorUserId: userId, details });
  }
}
