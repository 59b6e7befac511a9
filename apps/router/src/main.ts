import 'reflect-metadata';
import cluster from 'node:cluster';
import { Broker } from '@docflow/messaging';
import { closeDatabase, databaseHealthCheck, openDatabase, pruneInBatches, startPeriodic } from '@docflow/persistence';
import { createLogger, errorMessage, Lifecycle, loadConfigOrExit, Metrics, runPrimary } from '@docflow/service-kit';
import { startTelemetry } from '@docflow/telemetry';
import { createRequestListener } from './app';
import { RouterConfig } from './config';
import { routerDatabaseOptions } from './data-source';
import { RouterJobsRepository } from './jobs/router-jobs.repository';
import { createRouterMetrics } from './metrics';
import { startQueueDepths } from './queue-depths';
import { startResultsConsumer } from './results/results.consumer';
import { declareRouterQueues } from './topology';

async function main(): Promise<void> {
  const config = loadConfigOrExit(RouterConfig, 'router');
  const telemetry = startTelemetry({ service: config.OTEL_SERVICE_NAME ?? 'router', endpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT });
  const logger = createLogger({ service: 'router', level: config.LOG_LEVEL, format: config.LOG_FORMAT });
  if (config.ROUTER_REPLICAS > 1 && cluster.isPrimary) {
    // Replicas share the port: the public API keeps one ROUTER_URL, and every replica consumes results_queue.
    runPrimary({ workers: config.ROUTER_REPLICAS, shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS, logger });
    return;
  }
  const lifecycle = new Lifecycle(logger, config.SHUTDOWN_TIMEOUT_MS);
  lifecycle.installSignalHandlers();
  // The first hook runs last: spans of the shutdown itself are exported too.
  lifecycle.onShutdown('telemetry', () => telemetry.shutdown());

  // Shutdown hooks run in reverse: HTTP stops first, then the broker (consumers
  // cancelled, in-flight results finished or requeued), then the database.
  const ds = await openDatabase(routerDatabaseOptions(config.DATABASE_URL, logger, config.DB_POOL_SIZE));
  lifecycle.onShutdown('database', () => closeDatabase(ds));

  // Connects in the background: HTTP serves even while RabbitMQ is down
  // (health 503, submissions 503) and the broker keeps retrying.
  const broker = Broker.connect({ url: config.AMQP_URL, logger, name: 'router' });
  lifecycle.onShutdown('broker', () => broker.close(Math.max(1000, Math.floor(config.SHUTDOWN_TIMEOUT_MS / 2))));

  const metrics = new Metrics('router');
  const routerMetrics = createRouterMetrics(metrics);
  const jobs = new RouterJobsRepository(ds);

  // The database is ready; the broker subscribes once connected, after declaring these queues.
  await declareRouterQueues(broker);
  startResultsConsumer({ broker, jobs, metrics: routerMetrics, logger, prefetch: config.RESULTS_PREFETCH, lingerMs: config.RESULTS_LINGER_MS });
  // Retention (issue #15 item 5): the router prunes its own jobs, hourly and in batches.
  const retention = startPeriodic(async () => {
    try {
      const removed = await pruneInBatches((n) => jobs.pruneBatch(config.EXECUTION_RETENTION_DAYS, n));
      if (removed) logger.info('retention: old router jobs removed', { routerJobs: removed });
    } catch (err) {
      logger.warn('retention pass failed', { error: errorMessage(err) });
    }
  }, 3_600_000);
  lifecycle.onShutdown('retention', () => retention.stop());
  // Queue and dead-letter depths on /metrics (dashboards, alerts, autoscaling checks).
  const depths = startQueueDepths({ broker, metrics, logger, intervalMs: config.QUEUE_METRICS_INTERVAL_MS });
  lifecycle.onShutdown('queue depths', () => depths.stop());

  const listener = createRequestListener({
    metricsToken: config.METRICS_TOKEN,
    logger,
    metrics,
    routerMetrics,
    health: [databaseHealthCheck(ds), broker.healthCheck()],
    jobs,
    broker,
    apiKey: config.ROUTER_API_KEY,
  });
  await lifecycle.listen(listener, config.ROUTER_PORT, config.BIND_HOST);
  logger.info('listening', { port: config.ROUTER_PORT, host: config.BIND_HOST });
}

main().catch((err: unknown) => {
  process.stderr.write(`router failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
