import type { Counter } from 'prom-client';
import type { Metrics } from '@docflow/service-kit';

export type AuthEvent =
  | 'login_succeeded'
  | 'login_failed'
  | 'logout'
  | 'token_rejected'
  | 'step_up_requested'
  | 'step_up_mail_failed'
  | 'step_up_verified'
  | 'step_up_failed'
  | 'step_up_rejected'
  | 'step_up_required';

/** Counts authentication events for Prometheus (`public_api_auth_events_total{event}`). */
export class AuthEvents {
  private readonly counter: Counter<'event'>;

  constructor(metrics: Metrics) {
    const name = 'public_api_auth_events_total';
    const existing = metrics.registry.getSingleMetric(name) as Counter<'event'> | undefined;
    this.counter = existing ?? metrics.counter(name, 'Authentication events by kind', ['event']);
  }

  record(event: AuthEvent): void {
    this.counter.inc({ event });
  }
}
