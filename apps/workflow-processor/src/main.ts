import 'reflect-metadata';
import { CloudDriveConfig } from '@docflow/cloud-drive';
import { aiClientsHealthChecks } from '@docflow/llm-client';
import { createMailer } from '@docflow/mail';
import { Broker } from '@docflow/messaging';
import { closeDatabase, databaseHealthCheck, openDatabase, startPeriodic } from '@docflow/persistence';
import { createLogger, errorMessage, Lifecycle, loadConfigOrExit, Metrics } from '@docflow/service-kit';
import { startTelemetry } from '@docflow/telemetry';
import { createApp } from './app';
import { NodeRunsRepository } from './checkpoints/node-runs.repository';
import { ExecutionStatusRepository } from './checkpoints/execution-status.repository';
import { WakeupsRepository } from './parking/wakeups.repository';
import { pruneProcessorTables } from './checkpoints/retention';
import { WorkflowProcessorConfig } from './config';
import { workflowProcessorDatabaseOptions } from './data-source';
import { driveFetchClients } from './executors/cloud-drive/drive-fetch-deps';
import { createWorkflowMetrics } from './metrics';
import { createWorkflowProcessor } from './processor';
import { declareWorkflowQueues } from './topology';

async function main(): Promise<void> {
  const config = loadConfigOrExit(WorkflowProcessorConfig, 'workflow-processor');
  const telemetry = startTelemetry({ service: config.OTEL_SERVICE_NAME ?? 'workflow-processor', endpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT });
  const logger = createLogger({ service: 'workflow-processor', level: config.LOG_LEVEL, format: config.LOG_FORMAT });
  const lifecycle = new Lifecycle(logger, config.SHUTDOWN_TIMEOUT_MS);
  lifecycle.installSignalHandlers();
  // The first hook runs last: spans of the shutdown itself are exported too.
  lifecycle.onShutdown('telemetry', () => telemetry.shutdown());

  // Shutdown hooks run in reverse: HTTP first, then the consumer (runs finish
  // or are requeued), then the broker, the mailer and the database.
  const ds = await openDatabase(workflowProcessorDatabaseOptions(config.DATABASE_URL, logger, config.DB_POOL_SIZE));
  lifecycle.onShutdown('database', () => closeDatabase(ds));

  const mailer = createMailer({ smtpUrl: config.SMTP_URL, outboxDir: config.OUTBOX_DIR, from: config.MAIL_FROM, logger });
  lifecycle.onShutdown('mailer', () => mailer.close());

  const broker = Broker.connect({ url: config.AMQP_URL, logger, name: 'workflow-processor' });
  const budget = config.SHUTDOWN_TIMEOUT_MS;
  lifecycle.onShutdown('broker', () => broker.close(Math.max(1000, Math.floor(budget * 0.2))));

  // cloud_drive_fetch_task reads the run user's drive (CLOUD_DRIVE_*, runtime contract) and stores the file through the public API.
  const driveConfig = loadConfigOrExit(CloudDriveConfig, 'workflow-processor');
  const drive = driveFetchClients(driveConfig, { baseUrl: config.PUBLIC_API_INTERNAL_URL, serviceKey: config.SERVICE_KEY }, logger);
  lifecycle.onShutdown('drive clients', () => drive.close());

  const metrics = new Metrics('workflow-processor');
  const nodeRuns = new NodeRunsRepository(ds);
  const wakeups = new WakeupsRepository(ds);
  // Retention (issue #15 item 5): hourly, in batches; stopped before the database closes.
  const retention = startPeriodic(async () => {
    try {
      const removed = await pruneProcessorTables({ nodeRuns, wakeups, days: config.EXECUTION_RETENTION_DAYS });
      if (removed.nodeRuns || removed.wakeups) logger.info('retention: old checkpoints removed', removed);
    } catch (err) {
      logger.warn('retention pass failed', { error: errorMessage(err) });
    }
  }, 3_600_000);
  lifecycle.onShutdown('retention', () => retention.stop());
  const processor = createWorkflowProcessor({
    config,
    broker,
    checkpoints: nodeRuns,
    // Waits and long retry backoffs park here instead of holding their job (issue #15 item 3).
    parks: wakeups,
    control: new ExecutionStatusRepository(ds),
    mailer,
    metrics: createWorkflowMetrics(metrics),
    logger,
    drive,
  });
  // The database is ready; the broker subscribes once connected, after declaring the queues.
  await declareWorkflowQueues(broker);
  processor.start();
  // Most of the budget lets runs finish; what is still running then is requeued.
  lifecycle.onShutdown('workflow consumer', () => processor.stop(Math.floor(budget * 0.6), Math.min(2000, Math.floor(budget * 0.1))));

  const app = createApp({ logger, metrics, metricsToken: config.METRICS_TOKEN, health: [broker.healthCheck(), databaseHealthCheck(ds), ...aiClientsHealthChecks(config)] });
  await lifecycle.listen(app, config.WORKFLOW_PROCESSOR_PORT, config.BIND_HOST);
  logger.info('listening', { port: config.WORKFLOW_PROCESSOR_PORT, host: config.BIND_HOST, prefetch: config.WORKFLOW_PREFETCH, smtp: config.SMTP_URL ? 'smtp' : 'outbox' });
}

main().catch((err: unknown) => {
  process.stderr.write(`workflow-processor failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
