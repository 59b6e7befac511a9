import type http from 'node:http';
import path from 'node:path';
import { createMailer } from '@docflow/mail';
import { Broker } from '@docflow/messaging';
import { closeDatabase, databaseHealthCheck, listenForNotifications } from '@docflow/persistence';
import { errorMessage, httpHealthCheck, type Lifecycle, type Logger, Metrics } from '@docflow/service-kit';
import { buildPublicApi, type PublicApi } from './app';
import { openPublicApiDatabase } from './data-source';
import { createStorageFromConfig } from './documents';
import { AUTH_CHANGED_CHANNEL, AuditLog, createQuotasService, demoUsersWanted, seedDemoUsers, UsersRepository, UsersService } from './identity';
import type { PublicApiConfig } from './platform';
import type { EventBusDriveSettings } from './workflows';
import { startWorkers } from './workers';
import { createExecutionServices, EXECUTION_CHANGED_CHANNEL } from './workflows';

const SERVICE = 'public-api';

export interface StartedPublicApi {
  api: PublicApi;
  /** The listening server, when this process has the api role. */
  server?: http.Server;
}

/**
 * Starts one public API process in the roles PUBLIC_API_ROLES names: `api`
 * serves HTTP, `workers` runs the background work (workers/). Hooks run in
 * reverse on shutdown: HTTP stops first, then the auth change listener, the
 * workers, the broker, mail, the audit log and the database.
 */
export async function startPublicApi(config: PublicApiConfig, logger: Logger, lifecycle: Lifecycle, cloudDrive?: EventBusDriveSettings): Promise<StartedPublicApi> {
  const roles = new Set(config.PUBLIC_API_ROLES);
  logger.info('starting', { roles: [...roles] });
  const database = await openPublicApiDatabase(config.DATABASE_URL, logger);
  lifecycle.onShutdown('database', () => closeDatabase(database));
  const metrics = new Metrics(SERVICE);
  metrics.aggregateAcrossCluster();
  // Closed (what is pending written) after everything that records audit rows has stopped.
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
  mailer.verify().catch((err: unknown) => logger.warn('mail transport not usable yet', { kind: mailer.kind, error: errorMessage(err) }));

  if (demoUsersWanted(config)) {
    await seedDemoUsers(new UsersService(new UsersRepository(database)), logger);
  } else if (config.SEED_DEMO_USERS) {
    logger.warn('SEED_DEMO_USERS is ignored with NODE_ENV=production');
  }

  // Connects in the background and keeps retrying: HTTP serves while RabbitMQ is down (health 503).
  const broker = Broker.connect({ url: config.AMQP_URL, logger, name: SERVICE });
  lifecycle.onShutdown('broker', () => broker.close(Math.max(1000, Math.floor(config.SHUTDOWN_TIMEOUT_MS / 2))));

  // One set of execution use cases for the routes, the results consumer and the reaper.
  const quotas = createQuotasService({ config, database, logger, mailer, audit });
  const executionServices = createExecutionServices({ config, database, logger, metrics, audit, quotas });
  // Hooks run in reverse: the starts' and results' announcements still in flight are sent before the database closes.
  lifecycle.onShutdown('execution announcements', () => executionServices.repo.announced());
  const storage = createStorageFromConfig(config);
  // The console's files sit next to the bundle (dist/apps/public-api/console) unless CONSOLE_DIR says otherwise.
  const consoleDir = config.CONSOLE_DIR ?? path.join(__dirname, '..', 'console');
  const api = buildPublicApi({
    config,
    logger,
    metrics,
    database,
    mailer,
    storage,
    broker,
    audit,
    quotas,
    executionServices,
    consoleDir,
    cloudDrive,
    textExtraction: !roles.has('workers') ? 'elsewhere' : roles.has('api') ? 'here' : 'sweeper-only',
    health: [databaseHealthCheck(database), broker.healthCheck(), storage.healthCheck(), httpHealthCheck('router', config.ROUTER_URL), httpHealthCheck('llm-service', config.LLM_SERVICE_URL)],
  });

  if (roles.has('workers')) {
    await startWorkers(
      {
        config,
        logger,
        database,
        broker,
        audit,
        limits: api.limits,
        executions: executionServices,
        documents: api.documents,
        rag: api.rag,
        schedules: api.schedules,
        sweepPendingWebhookStarts: api.sweepPendingWebhookStarts,
        eventBus: api.eventBus,
        gdpr: api.gdpr,
      },
      lifecycle,
    );
  }
  if (!roles.has('api')) return { api };

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
  // Long polls and event streams of executions are woken by changes any process commits.
  const executionChanges = listenForNotifications({
    url: config.DATABASE_URL,
    channel: EXECUTION_CHANGED_CHANNEL,
    onNotify: (payload) => executionServices.watch.onNotification(payload),
    onLiveChange: (live) => executionServices.watch.setLive(live),
    logger: logger.child({ component: 'execution-changes' }),
  });
  await executionChanges.ready;
  lifecycle.onShutdown('execution change listener', () => executionChanges.close());
  const server = await lifecycle.listen(api.listener, config.PUBLIC_API_PORT, config.HOST);
  logger.info('listening', { port: config.PUBLIC_API_PORT, host: config.HOST });
  return { api, server };
}
