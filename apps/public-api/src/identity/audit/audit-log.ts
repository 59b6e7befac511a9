import { currentCorrelationId, type Logger } from '@docflow/service-kit';
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

export interface AuditLogOptions {
  database: PublicApiDatabase;
  logger: Logger;
  retentionDays: number;
  /** How long a recorded row may wait to be written together with others. Default 100 ms. */
  flushDelayMs?: number;
  /** Rows per INSERT. Default 500. */
  maxBatch?: number;
  /** Rows held while the database does not take them; older ones are dropped beyond it. Default 10,000. */
  maxPending?: number;
}

const DAY_MS = 86_400_000;

/**
 * Writes the audit log (spec 2.19). `record` never throws and never waits:
 * rows are written in batches a moment later, so auditing adds one INSERT
 * per batch, not per action, to the paths it watches. A write that fails is
 * tolerated (spec 4.17: the call succeeds, the row is missing): it is logged
 * with the number of rows, retried with the next batch while the backlog is
 * below maxPending, and rows beyond it are dropped, oldest first. `close`
 * writes what is pending (call it before the database closes).
 */
export class AuditLog {
  private pending: AuditRow[] = [];
  private readonly repo: AuditRepository;
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private readonly flushDelayMs: number;
  private readonly maxBatch: number;
  private readonly maxPending: number;

  constructor(private readonly options: AuditLogOptions) {
    this.flushDelayMs = options.flushDelayMs ?? 100;
    this.maxBatch = options.maxBatch ?? 500;
    this.maxPending = options.maxPending ?? 10_000;
    this.repo = new AuditRepository(options.database);
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
      this.options.logger.warn('audit rows dropped: the backlog is full', { dropped: dropped.length, maxPending: this.maxPending });
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

  close(): Promise<void> {
    return this.flush();
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
        this.options.logger.warn('writing audit rows failed', { rows: batch.length, error: err instanceof Error ? err.message : String(err) });
        return;
      }
    }
  }
}
