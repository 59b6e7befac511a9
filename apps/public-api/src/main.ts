import 'reflect-metadata';
import cluster from 'node:cluster';
import path from 'node:path';
import { createMailer } from '@docflow/mail';
import { Broker } from '@docflow/messaging';
import { closeDatabase, databaseHealthCheck, listenForNotifications } from '@docflow/persistence';
import { createLogger, httpHealthCheck, Lifecycle, loadConfigOrExit, Metrics } from '@docflow/service-kit';
import { buildPublicApi } from './app';
import { runPrimary } from './cluster-primary';
import { purgeExpiredAuthRecords } from './identity';
import { startHousekeeping } from './workers';
import { startScheduler } from './workflows';
import { AuditLog } from './identity';
import { AUTH_CHANGED_CHANNEL } from './identity';
import { PublicApiConfig } from './platform';
import { openPublicApiDatabase } from './data-source';
import { demoUsersWanted, seedDemoUsers } from './identity';
import { createStorageFromConfig } from './documents';
import { UsersRepository } from './identity';
import { UsersService } from './identity';
import { startExecutionReaper } from './workflows';
import { startResultsConsumer } from './workflows';
import { createExecutionServices } from './workflows';

const SERVICE = 'public-api';

async function main(): Promise<void> {
  const config = loadConfigOrExit(PublicApiConfig, SERVICE);
  const logger = createLogger({ service: SERVICE, level: config.LOG_LEVEL, format: config.LOG_FORMAT });
  if (config.PUBLIC_API_WORKERS > 1 && cluster.isPrimary) {
    runPrimary({ workers: config.PUBLIC_API_WORKERS, shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS, logger });
    return;
  }
  // Hooks run in reverse: HTTP stops first, then the results consumer and the
  // execution reaper, the broker, housekeeping, mail and the database.
  const lifecycle = new Lifecycle(logger, config.SHUTDOWN_TIMEOUT_MS);
  lifecycle.installSignalHandlers();

  const database = await openPublicApiDatabase(config.DATABASE_URL, logger);
  lifecycle.onShutdown('database', () => closeDatabase(database));
  // Closed (what is pending written) after everything that records audit rows has stopped.
  const metrics = new Metrics(SERVICE);
  metrics.aggregateAcrossCluster();
  const audit = new AuditLog({ database, logger: logger.child({ component: 'audit' }), metrics, retentionDays: config.AUDIT_LOG_RETENTION_DAYS });
  // Repeated failures (wrong webhook secrets) become one row per window once it ends, whichever process counted them.
  audit.startClosingWindows();
  lifecycle.onShutdown('audit log', () => audit.close());

  const mailer = createMailer({ smtpUrl: config.SMTP_URL, outboxDir: config.OUTBOX_DIR, from: config.MAIL_FROM, logger: logger.child({ component: 'mail' }) });
  lifecycle.onShutdown('mailer', () => mailer.close());
  if (mailer.kind === 'outbox') {
    const log = config.NODE_ENV === 'production' ? logger.warn.bind(logger) : logger.info.bind(logger);
    log('SMTP_URL is not set: mails are written as .eml files', { outboxDir: config.OUTBOX_DIR });
  }
  mailer.verify().catch((err: unknown) => logger.warn('mail transport not usable yet', { kind: mailer.kind, error: err instanceof Error ? err.message : String(err) }));

  if (demoUsersWanted(config)) {
    await seedDemoUsers(new UsersService(new UsersRepository(database)), logger);
  } else if (config.SEED_DEMO_USERS) {
    logger.warn('SEED_DEMO_USERS is ignored with NODE_ENV=production');
  }

  // Connects in the background and keeps retrying: HTTP serves while RabbitMQ is down (health 503).
  const broker = Broker.connect({ url: config.AMQP_URL, logger, name: SERVICE });
  lifecycle.onShutdown('broker', () => broker.close(Math.max(1000, Math.floor(config.SHUTDOWN_TIMEOUT_MS / 2))));

  const executionServices = createExecutionServices({ config, database, logger, metrics, audit });
  // The database is ready; the consumer subscribes as soon as the broker is connected (and again after each reconnect).
  const results = await startResultsConsumer({ broker, results: executionServices.results });
  lifecycle.onShutdown('results consumer', () => results.cancel(Math.max(1000, Math.floor(config.SHUTDOWN_TIMEOUT_MS / 2))));
  const reaper = startExecutionReaper({
    repo: executionServices.repo,
    logger: logger.child({ component: 'execution-reaper' }),
    leaseSeconds: config.EXECUTION_LEASE_SECONDS,
    intervalSeconds: config.REAPER_INTERVAL_SECONDS,
  });
  lifecycle.onShutdown('execution reaper', () => reaper.stop());

  const storage = createStorageFromConfig(config);
  const consoleDir = config.CONSOLE_DIR ?? path.join(__dirname, '..', 'console');
  const api = buildPublicApi({ config, logger, metrics, database, mailer, storage, broker, audit, executionServices, consoleDir, health: [
      databaseHealthCheck(database),
      broker.healthCheck(),
      storage.healthCheck(),
      httpHealthCheck('router', config.ROUTER_URL),
      httpHealthCheck('llm-service', config.LLM_SERVICE_URL),
    ],
  });
  const housekeeping = startHousekeeping(
    [
      { name: 'expired auth records', run: () => purgeExpiredAuthRecords(database) },
      { name: 'expired audit rows', run: async () => ({ auditRows: await audit.purgeExpired() }) },
      { name: 'ended rate-limit windows', run: async () => ({ rateLimitWindows: await api.limits.store.purgeExpired() }) },
    ],
    logger,
  );
  lifecycle.onShutdown('housekeeping', () => housekeeping.stop());
  // Schedules start workflows through the router; stopped before the broker and the database.
  const scheduler = startScheduler(api.schedules, logger.child({ component: 'scheduler' }), config.SCHEDULER_INTERVAL_SECONDS * 1000);
  lifecycle.onShutdown('scheduler', () => scheduler.stop());
  // Principals are cached only while this LISTEN holds: every change to a user or a revocation, by any replica, empties their entries.
  const authChanges = listenForNotifications({
    url: config.DATABASE_URL,
    channel: AUTH_CHANGED_CHANNEL,
    onNotify: (payload) => api.principals.onNotification(payload),
    onLiveChange: (live) => api.principals.setLive(live),
    logger: logger.child({ component: 'auth-changes' }),
  });
  await authChanges.ready;
  lifecycle.onShutdown('auth change listener', () => authChanges.close());
  // Picks up text extractions a stopped or crashed process left behind; stopped before the database closes.
  api.documents.start();
  lifecycle.onShutdown('document text extraction', () => api.documents.stop());
  // RAG indexing runs here, next to the text and chunk tables; stopped (jobs waiting for text requeued) before text extraction stops.
  await api.rag.start();
  lifecycle.onShutdown('rag indexing', () => api.rag.stop(Math.max(1000, Math.floor(config.SHUTDOWN_TIMEOUT_MS / 2))));
  await lifecycle.listen(api.app, config.PUBLIC_API_PORT, config.HOST);
  logger.info('listening', { port: config.PUBLIC_API_PORT, host: config.HOST });
}

main().catch((err: unknown) => {
  process.stderr.write(`${SERVICE} failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
