import express from 'express';
import type { RequestListener } from 'node:http';
import type { ShieldService } from '@docflow/data-shield';
import { requireServiceAuth, serviceCredentialsRefusal } from '@docflow/internal-auth';
import { createHttpApp, HealthCheck, jsonLane, Logger, Metrics } from '@docflow/service-kit';
import { entities, shieldRoutes, tokenise } from './shield.routes';

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

const BODY_LIMIT_BYTES = 10 * 1024 * 1024;

/** The Data Shield gateway: /api/v1/{entities, tokenise, restore, restore-stream, detect} behind service auth; /_health and /metrics open. */
export function createApp(deps: DataShieldDeps): express.Express {
  return createHttpApp({ logger: deps.logger, metrics: deps.metrics, health: deps.health, errorStyle: 'internal', metricsToken: deps.metricsToken, bodyLimit: BODY_LIMIT_BYTES }, (app) => {
    app.use('/api/v1', requireServiceAuth(deps.auth));
    app.use('/api/v1', shieldRoutes(deps.shield));
  });
}

/**
 * What the server runs: POST /api/v1/entities and /api/v1/tokenise, which
 * every shielded call waits for, through JSON lanes (the same
 * authentication, validation, answers and errors without express's
 * per-request work: see jsonLane and docs/decisions.md), everything else
 * through createApp's express app.
 */
export function createRequestListener(deps: DataShieldDeps): RequestListener {
  const lane = (path: string, route: (shield: ShieldService, body: unknown) => Promise<unknown>, fallback: RequestListener): RequestListener =>
    jsonLane({
      path,
      fallback,
      maxBodyBytes: BODY_LIMIT_BYTES,
      errorStyle: 'internal',
      logger: deps.logger,
      metrics: deps.metrics,
      handle: async (headers, body) => {
        const refused = serviceCredentialsRefusal(headers, deps.auth);
        if (refused) throw refused;
        return route(deps.shield, body);
      },
    });
  return lane('/api/v1/entities', entities, lane('/api/v1/tokenise', tokenise, createApp(deps)));
}
