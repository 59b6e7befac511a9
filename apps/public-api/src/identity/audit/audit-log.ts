import type { Counter } from 'prom-client';
import { currentCorrelationId, errorMessage, type Logger, type Metrics } from '@docflow/service-kit';
import type { PublicApiDatabase } from '../../platform';
import { AuditRepository, type AuditRow } from './audit.repository';
import { redactDetails } from './redact';

/** What a caller audits; the actor is a user id, details hold ids, counts and reasons (redacted again before storage). */
export interface AuditEntry {
  action: string;
  actorUserId?: number | null;
  tenant?: string | null;
  details?: Readonly<Record<string, unknown>>;
  /** Default: the correlation id of the request or message being handled. */
  correlationId?: string;
  /** Overrides the log's retention for this row (Data Shield rows: DATA_SHIELD_AUDIT_RETENTION_DAYS, spec 8). */
  retentionDays?: number;
}

/** A failure that may repeat many times (wrong webhook secrets): counted per subject and window, one row per window. */
export interface RepeatedEntry {
  action: string;
  /** What the failures are counted per, e.g. `webhook:12`. */
  subject: string;
  actorUserId?: number | null;
  details?: Readonly<Record<string, unknown>>;
  windowSeconds: number;
}

export interface AuditLogOptions {
  database: PublicApiDatabase;
  logger: Logger;
  retentionDays: number;
  /** How long a recorded row may wait to be written together with others. Default 100 ms. */
  flushDelayMs?: number;
  /** Rows per INSERT. Default 500. */
  maxBatch?: number;
  /** Rows held while the database does not take them; older ones are dropped beyond it (counted and alerted). Default 10,000. */
  maxPending?: number;
  /** Where `docflow_audit_rows_dropped_total` is counted; without it, drops are only logged. */
  metrics?: Metrics;
}

export const DROPPED_ROWS_METRIC = 'docflow_audit_rows_dropped_total';

const DAY_MS = 86_400_000;

/**
 * Writes the audit log (spec 2.19). `record` never throws and never waits:
 * rows are written in batches a moment later, so auditing adds one INSERT
 * per batch, not per action, to the paths it watches. A write that fails is
 * tolerated (spec 4.17: the call succeeds, the row is missing): it is logged
 * with the number of rows, retried with the next batch while the backlog is
 * below maxPending; rows beyond it are dropped, oldest first, and never
 * silently: each is counted in `docflow_audit_rows_dropped_total` and an
 * error line starting with ALERT says how many. `close` writes what is
 * pending (call it before the database closes).
 *
 * Failures anyone can cause without credentials (a wrong webhook secret)
 * would otherwise write one 400-day row per request: `recordRepeated`
 * counts them per subject and window instead (table audit_aggregates), and
 * `closeWindows` turns each ended window into one row with its `count`.
 */
export class AuditLog {
  private pending: AuditRow[] = [];
  private readonly repo: AuditRepository;
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private readonly flushDelayMs: number;
  private readonly maxBatch: number;
  private readonly maxPending: number;
  private readonly droppedRows: Counter | undefined;
  private droppedTotal = 0;
  private windowTimer: NodeJS.Timeout | undefined;

  constructor(private readonly options: AuditLogOptions) {
    this.flushDelayMs = options.flushDelayMs ?? 100;
    this.maxBatch = options.maxBatch ?? 500;
    this.maxPending = options.maxPending ?? 10_000;
    this.repo = new AuditRepository(options.database);
    const metrics = options.metrics;
    this.droppedRows = metrics
      ? ((metrics.registry.getSingleMetric(DROPPED_ROWS_METRIC) as Counter | undefined) ??
        metrics.counter(DROPPED_ROWS_METRIC, 'Audit rows dropped because the backlog was full (the database did not take them)'))
      : undefined;
  }

  /** Rows this writer has dropped since it started. */
  get dropped(): number {
    return this.droppedTotal;
  }

  record(entry: AuditEntry): void {
    const createdAt = new Date();
    this.pending.push({
      action: entry.action,
      actorUserId: entry.actorUserId ?? null,
      tenant: entry.tenant ?? null,
      correlationId: entry.correlationId ?? currentCorrelationId() ?? null,
      details: JSON.stringify(redactDetails(entry.details)),
      createdAt,
      retainUntil: new Date(createdAt.getTime() + (entry.retentionDays ?? this.options.retentionDays) * DAY_MS),
    });
    if (this.pending.length > this.maxPending) {
      const dropped = this.pending.splice(0, this.pending.length - this.maxPending);
      this.droppedTotal += dropped.length;
      this.droppedRows?.inc(dropped.length);
      this.options.logger.error('ALERT audit rows dropped: the backlog is full and the database is not taking rows', {
        dropped: dropped.length,
        droppedTotal: this.droppedTotal,
        maxPending: this.maxPending,
        actions: [...new Set(dropped.map((r) => r.action))],
      });
    }
    if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), this.flushDelayMs);
      this.timer.unref();
    }
  }

  /** Writes every row recorded so far; resolves when they are written or their write failed. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.writing = this.writing.then(() => this.writePending());
    return this.writing;
  }

  /**
   * Counts one repeated failure in its subject's current window; never
   * throws. If the count cannot be written, the failure is recorded as a row
   * of its own instead, so it is never lost.
   */
  recordRepeated(entry: RepeatedEntry): void {
    const correlationId = currentCorrelationId() ?? null;
    const row = {
      action: entry.action,
      subject: entry.subject,
      windowSeconds: entry.windowSeconds,
      actorUserId: entry.actorUserId ?? null,
      correlationId,
      details: JSON.stringify(redactDetails(entry.details)),
    };
    this.repo.countRepeated(row).catch((err: unknown) => {
      this.options.logger.warn('counting a repeated audit action failed; recording it as a row', { action: entry.action, error: errorMessage(err) });
      this.record({ action: entry.action, actorUserId: entry.actorUserId, details: { ...entry.details, count: 1 }, ...(correlationId ? { correlationId } : {}) });
    });
  }

  /** Writes one row per ended window of repeated failures (any process's); returns how many. */
  closeWindows(): Promise<number> {
    return this.repo.closeWindows(this.options.retentionDays);
  }

  /** Closes ended windows every `intervalMs` until close(). */
  startClosingWindows(intervalMs = 15_000): void {
    if (this.windowTimer) return;
    this.windowTimer = setInterval(() => {
      this.closeWindows().catch((err: unknown) => this.options.logger.warn('closing audit windows failed', { error: errorMessage(err) }));
    }, intervalMs);
    this.windowTimer.unref();
  }

  async close(): Promise<void> {
    if (this.windowTimer) clearInterval(this.windowTimer);
    this.windowTimer = undefined;
    await this.flush();
    // Windows still open stay in audit_aggregates, a logged table: the next process to run closes them.
    await this.closeWindows().catch((err: unknown) => this.options.logger.warn('closing audit windows failed', { error: errorMessage(err) }));
  }

  /** Deletes rows whose retention has ended (the table's trigger allows only those); returns how many. */
  purgeExpired(): Promise<number> {
    return this.repo.purgeExpired();
  }

  private async writePending(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending.slice(0, this.maxBatch);
      try {
        await this.repo.insertBatch(batch);
        this.pending.splice(0, batch.length);
      } catch (err) {
        // Kept for the next flush; the next record() schedules one.
        this.options.logger.warn('writing audit rows failed', { rows: batch.length, error: errorMessage(err) });
        return;
      }
    }
  }
}
