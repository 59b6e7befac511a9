import express from 'express';
import type { ShieldService } from '@docflow/data-shield';
import { requireServiceAuth } from '@docflow/internal-auth';
import { createHttpApp, HealthCheck, Logger, Metrics } from '@docflow/service-kit';
import { shieldRoutes } from './shield.routes';

export interface DataShieldDeps {
  logger: Logger;
  metrics: Metrics;
  /** METRICS_TOKEN: when set, /metrics asks for it as a bearer token. */
  metricsToken?: string;
  /** main passes the detectors' self-test; the public API is not one (an unreachable tenant source is tolerated, rule 8). */
  health: HealthCheck[];
  auth: { serviceKey: string; jwtSecret: string };
  shield: ShieldService;
}

/** The Data Shield gateway: /api/v1/{tokenise, restore, restore-stream, detect} behind service auth; /_health and /metrics open. */
export function createApp(deps: DataShieldDeps): express.Express {
  return createHttpApp({ logger: deps.logger, metrics: deps.metrics, health: deps.health, errorStyle: 'internal', metricsToken: deps.metricsToken, bodyLimit: '10mb' }, (app) => {
    app.use('/api/v1', requireServiceAuth(deps.auth));
    app.use('/api/v1', shieldRoutes(deps.shield));
  });
}
