import express from 'express';
import { createHttpApp, HealthCheck, Logger, Metrics, ServiceUnavailableError } from '@docflow/service-kit';

export interface DataShieldDeps {
  logger: Logger;
  metrics: Metrics;
  health: HealthCheck[];
}

/**
 * The Data Shield gateway. Detection and tokenisation are not built yet, so
 * every shielding route fails closed with 503: callers that require shielding
 * must never send text unshielded (spec 4.17, rule 8).
 */
export function createApp(deps: DataShieldDeps): express.Express {
  return createHttpApp({ logger: deps.logger, metrics: deps.metrics, health: deps.health, errorStyle: 'internal' }, (app) => {
    const unavailable = () => {
      throw new ServiceUnavailableError('Data Shield detection is not available in this build', { retry_after: 60 }, 'data_shield_unavailable');
    };
    app.post('/api/v1/tokenise', unavailable);
    app.post('/api/v1/restore', unavailable);
    app.post('/api/v1/detect', unavailable);
  });
}
