import type express from 'express';
import type { Broker } from '@docflow/messaging';
import { createHttpApp, HealthCheck, Logger, Metrics } from '@docflow/service-kit';
import { mountJobRoutes } from './jobs/jobs.routes';
import { JobsService } from './jobs/jobs.service';
import type { RouterJobsRepository } from './jobs/router-jobs.repository';
import type { RouterMetrics } from './metrics';

export interface RouterAppDeps {
  logger: Logger;
  metrics: Metrics;
  /** METRICS_TOKEN: when set, /metrics asks for it as a bearer token. */
  metricsToken?: string;
  routerMetrics: RouterMetrics;
  /** Database and broker checks for /_health. */
  health: HealthCheck[];
  jobs: RouterJobsRepository;
  broker: Pick<Broker, 'publish'>;
  apiKey: string;
}

/** The router's HTTP app: job submission and status (spec 4.16), internal error bodies. */
export function createApp(deps: RouterAppDeps): express.Express {
  const service = new JobsService({ jobs: deps.jobs, broker: deps.broker, metrics: deps.routerMetrics, logger: deps.logger });
  return createHttpApp({ logger: deps.logger, metrics: deps.metrics, health: deps.health, errorStyle: 'internal', metricsToken: deps.metricsToken }, (app) => {
    mountJobRoutes(app, service, deps.apiKey, deps.logger);
  });
}
