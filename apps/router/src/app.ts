import type express from 'express';
import type { RequestListener } from 'node:http';
import type { Broker } from '@docflow/messaging';
import { createHttpApp, HealthCheck, Logger, Metrics } from '@docflow/service-kit';
import { jobLane, mountJobRoutes } from './jobs/jobs.routes';
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

/** Request bodies of at most 1 MiB (express.json's '1mb'), on the express app and the lane alike. */
const BODY_LIMIT_BYTES = 1024 * 1024;

function build(deps: RouterAppDeps): { service: JobsService; app: express.Express } {
  const service = new JobsService({ jobs: deps.jobs, broker: deps.broker, metrics: deps.routerMetrics, logger: deps.logger });
  const app = createHttpApp({ logger: deps.logger, metrics: deps.metrics, health: deps.health, errorStyle: 'internal', metricsToken: deps.metricsToken, bodyLimit: BODY_LIMIT_BYTES }, (app) => {
    mountJobRoutes(app, service, deps.apiKey, deps.logger);
  });
  return { service, app };
}

/** The router's HTTP app: job submission and status (spec 4.16), internal error bodies. */
export function createApp(deps: RouterAppDeps): express.Express {
  return build(deps).app;
}

/**
 * What the server runs: POST /api/v1/jobs and /api/v1/jobs/batch through the
 * request lane (jobLane), everything else through createApp's express app;
 * both share one JobsService, so submissions of either are grouped together.
 */
export function createRequestListener(deps: RouterAppDeps): RequestListener {
  const { service, app } = build(deps);
  return jobLane({ jobs: service, apiKey: deps.apiKey, logger: deps.logger, metrics: deps.metrics, fallback: app, maxBodyBytes: BODY_LIMIT_BYTES });
}
