import type { Broker } from '@docflow/messaging';
import { startPeriodic, withPgTransaction } from '@docflow/persistence';
import type { Lifecycle, Logger } from '@docflow/service-kit';
import type { DocumentsModule } from '../documents';
import { type AuditLog, type GdprModule, purgeExpiredAuthRecords } from '../identity';
import type { PublicApiConfig, PublicApiDatabase, RateLimits } from '../platform';
import type { RagModule } from '../rag';
import { type EventBusModule, type ExecutionServices, executionRetention, type SchedulesService, startExecutionReaper, startScheduler, WEBHOOK_START_SWEEP_INTERVAL_MS } from '../workflows';
import { ResultDispatcher } from './results/result-dispatcher';
import { startResultsConsumer } from './results/results.consumer';
import { startHousekeeping } from './housekeeping';

export interface WorkersDeps {
  config: Pick<PublicApiConfig, 'SHUTDOWN_TIMEOUT_MS' | 'EXECUTION_LEASE_SECONDS' | 'REAPER_INTERVAL_SECONDS' | 'SCHEDULER_INTERVAL_SECONDS' | 'GDPR_INTERVAL_SECONDS' | 'EXECUTION_RETENTION_DAYS'>;
  logger: Logger;
  database: PublicApiDatabase;
  broker: Broker;
  audit: AuditLog;
  /** The shared rate-limit store: its ended windows are purged here. */
  limits: RateLimits;
  executions: ExecutionServices;
  documents: Pick<DocumentsModule, 'start' | 'stop' | 'extractionResults'>;
  rag: Pick<RagModule, 'start' | 'stop'>;
  schedules: SchedulesService;
  /** Accepted webhook triggers whose start is still pending (a process died after its answer, or the start was refused for a while). */
  sweepPendingWebhookStarts(): Promise<number>;
  eventBus: Pick<EventBusModule, 'start' | 'stop'>;
  /** Data exports to build and account deletions whose grace ended (issue #18). */
  gdpr: Pick<GdprModule, 'start' | 'exports'>;
}

/**
 * The workers role (PUBLIC_API_ROLES): the public API's background work,
 * each piece stopped by `lifecycle` in reverse order of start (RAG indexing
 * first, the results consumer last). Every piece is replica-safe, so any
 * number of processes may run this role.
 */
export async function startWorkers(deps: WorkersDeps, lifecycle: Lifecycle): Promise<void> {
  const { config, logger } = deps;
  const drainMs = Math.max(1000, Math.floor(config.SHUTDOWN_TIMEOUT_MS / 2));
  // The database is ready; the consumer subscribes as soon as the broker is connected (and again after each reconnect).
  // Every job family's results arrive on one queue, each family's handler writing into the public API's own tables.
  const dispatcher = new ResultDispatcher({ workflow: deps.executions.results, extraction: deps.documents.extractionResults }, logger.child({ component: 'results' }), (work) =>
    withPgTransaction(deps.database, work),
  );
  const results = await startResultsConsumer({ broker: deps.broker, results: dispatcher });
  lifecycle.onShutdown('results consumer', () => results.cancel(drainMs));
  const reaper = startExecutionReaper({
    repo: deps.executions.repo,
    logger: logger.child({ component: 'execution-reaper' }),
    leaseSeconds: config.EXECUTION_LEASE_SECONDS,
    intervalSeconds: config.REAPER_INTERVAL_SECONDS,
  });
  lifecycle.onShutdown('execution reaper', () => reaper.stop());
  const retention = executionRetention(deps.database, config.EXECUTION_RETENTION_DAYS);
  const housekeeping = startHousekeeping(
    [
      { name: 'expired auth records', run: () => purgeExpiredAuthRecords(deps.database) },
      { name: 'expired audit rows', run: async () => ({ auditRows: await deps.audit.purgeExpired() }) },
      { name: 'ended rate-limit windows', run: async () => ({ rateLimitWindows: await deps.limits.store.purgeExpired() }) },
      { name: 'expired data exports', run: () => deps.gdpr.exports.purgeExpired() },
      // Issue #15 item 5: finished executions, their steps and settled event logs past EXECUTION_RETENTION_DAYS, in batches.
      { name: 'expired executions', run: () => retention.run() },
    ],
    logger,
  );
  lifecycle.onShutdown('housekeeping', () => housekeeping.stop());
  // Data exports are built and account deletions run here; stopped before the database closes.
  const gdpr = deps.gdpr.start(config.GDPR_INTERVAL_SECONDS * 1000);
  lifecycle.onShutdown('data exports and account deletions', () => gdpr.stop());
  // Schedules start workflows through the router; stopped before the broker and the database.
  const scheduler = startScheduler(deps.schedules, logger.child({ component: 'scheduler' }), config.SCHEDULER_INTERVAL_SECONDS * 1000);
  lifecycle.onShutdown('scheduler', () => scheduler.stop());
  // Accepted webhook triggers left pending start here; stopped before the broker and the database.
  const webhookStarts = startPeriodic(async () => {
    await deps.sweepPendingWebhookStarts();
  }, WEBHOOK_START_SWEEP_INTERVAL_MS);
  lifecycle.onShutdown('pending webhook starts', () => webhookStarts.stop());
  // Picks up text extractions (PDF parsing, OCR) left pending or behind; stopped before the database closes.
  deps.documents.start();
  lifecycle.onShutdown('document text extraction', () => deps.documents.stop());
  // RAG indexing runs next to the text and chunk tables; stopped (jobs waiting for text requeued) before text extraction stops.
  await deps.rag.start();
  lifecycle.onShutdown('rag indexing', () => deps.rag.stop(drainMs));
  // The event bus: drive reads from event_bus_queue, settling, local watches and mailboxes, and its tick
  // (watch renewals, reads after a drive outage, events left open); stopped first, before the broker.
  await deps.eventBus.start({ tickMs: config.SCHEDULER_INTERVAL_SECONDS * 1000 });
  lifecycle.onShutdown('event bus', () => deps.eventBus.stop());
}
