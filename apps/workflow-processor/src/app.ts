import type express from 'express';
import { createHttpApp, type HealthCheck, type Logger, type Metrics } from '@docflow/service-kit';

export interface WorkflowProcessorAppDeps {
  logger: Logger;
  metrics: Metrics;
  /** METRICS_TOKEN: when set, /metrics asks for it as a bearer token. */
  metricsToken?: string;
  /** Broker and database checks for /_health. */
  health: HealthCheck[];
}

/** The processor's HTTP surface: /_health (broker + database) and /metrics only. */
export function createApp(deps: WorkflowProcessorAppDeps): express.Express {
  return createHttpApp({ logger: deps.logger, metrics: deps.metrics, health: deps.health, errorStyle: 'internal', metricsToken: deps.metricsToken }, () => undefined);
}
