import express from 'express';
import { createHttpApp, HealthCheck, Logger, Metrics } from '@docflow/service-kit';

export interface ExtractionProcessorDeps {
  logger: Logger;
  metrics: Metrics;
  /** METRICS_TOKEN: when set, /metrics asks for it as a bearer token. */
  metricsToken?: string;
  health: HealthCheck[];
}

/** Health and metrics only: the work arrives on `extraction_queue`. */
export function createApp(deps: ExtractionProcessorDeps): express.Express {
  return createHttpApp({ logger: deps.logger, metrics: deps.metrics, health: deps.health, errorStyle: 'internal', metricsToken: deps.metricsToken }, () => undefined);
}
