import type { PublicApiDatabase } from '../../platform';

export type ExportStatus = 'pending' | 'ready' | 'failed';

export interface ExportRecord {
  id: number;
  userId: number;
  status: ExportStatus;
  storageKey: string | null;
  sizeBytes: number | null;
  error: string | null;
  attempts: number;
  requestedAt: Date;
  readyAt: Date | null;
  expiresAt: Date | null;
}

export interface DeletionRecord {
  id: number;
  userId: number;
  status: 'pending' | 'running';
  requestedAt: Date;
  dueAt: Date;
  attempts: number;
}

interface ExportRow {
  id: number;
  user_id: number;
  status: ExportStatus;
  storage_key: string | null;
  size_bytes: string | null;
  error: string | null;
  attempts: number;
  requested_at: Date;
  ready_at: Date | null;
  expires_at: Date | null;
}

interface DeletionRow {
  id: number;
  user_id: number;
  status: 'pending' | 'running';
  requested_at: Date;
  due_at: Date;
  attempts: number;
}

const toExport = (r: ExportRow): ExportRecord => ({
  id: r.id,
  userId: r.user_id,
  status: r.status,
  storageKey: r.storage_key,
  sizeBytes: r.size_bytes === null ? null : Number(r.size_bytes),
  error: r.error,
  attempts: r.attempts,
  requestedAt: r.requested_at,
  readyAt: r.ready_at,
  expiresAt: r.expires_at,
});

const toDeletion = (r: DeletionRow): DeletionRecord => ({ id: r.id, userId: r.user_id, status: r.status, requestedAt: r.requested_at, dueAt: r.due_at, attempts: r.attempts });

/** A DELETE/UPDATE ... RETURNING through TypeORM answers [rows, count]. */
function returned<T>(result: unknown): T[] {
  return (Array.isArray(result) && Array.isArray(result[0]) ? result[0] : result) as T[];
}

/** The account's own rows in a copy (no password hash, no sealed secrets). */
export interface AccountCopy {
  account: Record<string, unknown>[];
  credentials: Record<string, unknown>[];
  auditRows: Record<string, unknown>[];
  /** The quotas an administrator set for the user and the monthly counters (issue 18 item 3). */
  quotas: Record<string, unknown>[];
  quotaPeriods: Record<string, unknown>[];
}

/** Tables gdpr_exports and gdpr_deletions, and identity's own part of a user's data. */
export class GdprRepository {
  constructor(private readonly ds: PublicApiDatabase) {}

  /** The user's pending export when there is one (a second request joins it), else a new one. */
  async requestExport(userId: number): Promise<{ record: ExportRecord; created: boolean }> {
    return this.ds.transaction(async (m) => {
      // One request at a time per user: the row lock on the user serialises two concurrent requests.
      await m.query('SELECT id FROM users WHERE id = $1 FOR UPDATE', [userId]);
      const open = (await m.query("SELECT * FROM gdpr_exports WHERE user_id = $1 AND status = 'pending' ORDER BY id DESC LIMIT 1", [userId])) as ExportRow[];
      if (open[0]) return { record: toExport(open[0]), created: false };
      const rows = (await m.query('INSERT INTO gdpr_exports (user_id) VALUES ($1) RETURNING *', [userId])) as ExportRow[];
      return { record: toExport(rows[0]!), created: true };
    });
  }

  async latestExport(userId: number): Promise<ExportRecord | null> {
    const rows = (await this.ds.query('SELECT * FROM gdpr_exports WHERE user_id = $1 ORDER BY id DESC LIMIT 1', [userId])) as ExportRow[];
    return rows[0] ? toExport(rows[0]) : null;
  }

  async findExport(id: number): Promise<ExportRecord | null> {
    const rows = (await this.ds.query('SELECT * FROM gdpr_exports WHERE id = $1', [id])) as ExportRow[];
    return rows[0] ? toExport(rows[0]) : null;
  }

  /**
   * Takes the oldest pending export nobody is building (or whose builder
   * stopped answering for staleSeconds), counting the attempt, and skipping
   * `tried` (those that failed earlier in the same round). Replica-safe.
   */
  async claimPendingExport(staleSeconds: number, tried: readonly number[] = []): Promise<ExportRecord | null> {
    const rows = returned<ExportRow>(
      await this.ds.query(
        `UPDATE gdpr_exports SET claimed_at = now(), attempts = attempts + 1
          WHERE id = (SELECT id FROM gdpr_exports
                       WHERE status = 'pending' AND (claimed_at IS NULL OR claimed_at < now() - make_interval(secs => $1)) AND NOT (id = ANY($2::int[]))
                       ORDER BY id FOR UPDATE SKIP LOCKED LIMIT 1)
          RETURNING *`,
        [staleSeconds, tried],
      ),
    );
    return rows[0] ? toExport(rows[0]) : null;
  }

  /** Marks a claimed export ready; false when it is gone (its account was deleted meanwhile). */
  async markExportReady(id: number, storageKey: string, sizeBytes: number, retentionSeconds: number): Promise<ExportRecord | null> {
    const rows = returned<ExportRow>(
      await this.ds.query(
        `UPDATE gdpr_exports SET status = 'ready', storage_key = $2, size_bytes = $3, ready_at = now(), expires_at = now() + make_interval(secs => $4), error = NULL
          WHERE id = $1 AND status = 'pending' RETURNING *`,
        [id, storageKey, sizeBytes, retentionSeconds],
      ),
    );
    return rows[0] ? toExport(rows[0]) : null;
  }

  /** Records a failed attempt: the export fails for good after maxAttempts, otherwise the next round retries it. */
  async markExportAttemptFailed(id: number, error: string, maxAttempts: number): Promise<void> {
    await this.ds.query(
      `UPDATE gdpr_exports SET error = $2, claimed_at = NULL, status = CASE WHEN attempts >= $3 THEN 'failed' ELSE status END
        WHERE id = $1 AND status = 'pending'`,
      [id, error.slice(0, 1000), maxAttempts],
    );
  }

  /** Removes exports whose retention ended (spec 8: 7 days) and failed ones as old; answers their storage keys. */
  async deleteExpiredExports(now: Date): Promise<{ id: number; storageKey: string | null }[]> {
    const rows = returned<{ id: number; storage_key: string | null }>(
      await this.ds.query(
        `DELETE FROM gdpr_exports
          WHERE (expires_at IS NOT NULL AND expires_at <= $1) OR (status = 'failed' AND requested_at <= $1::timestamptz - interval '7 days')
          RETURNING id, storage_key`,
        [now],
      ),
    );
    return rows.map((r) => ({ id: r.id, storageKey: r.storage_key }));
  }

  /** Every export of the user (their archives are removed before the account goes). */
  async deleteExportsOf(userId: number): Promise<{ id: number; storageKey: string | null }[]> {
    const rows = returned<{ id: number; storage_key: string | null }>(await this.ds.query('DELETE FROM gdpr_exports WHERE user_id = $1 RETURNING id, storage_key', [userId]));
    return rows.map((r) => ({ id: r.id, storageKey: r.storage_key }));
  }

  /** A deletion due at now + graceSeconds, or the one already pending (it keeps its date). */
  async requestDeletion(userId: number, graceSeconds: number): Promise<{ record: DeletionRecord; created: boolean }> {
    const inserted = (await this.ds.query(
      `INSERT INTO gdpr_deletions (user_id, due_at) VALUES ($1, now() + make_interval(secs => $2))
       ON CONFLICT (user_id) DO NOTHING RETURNING *`,
      [userId, graceSeconds],
    )) as DeletionRow[];
    if (inserted[0]) return { record: toDeletion(inserted[0]), created: true };
    const existing = await this.findDeletion(userId);
    if (!existing) return this.requestDeletion(userId, graceSeconds);
    return { record: existing, created: false };
  }

  async findDeletion(userId: number): Promise<DeletionRecord | null> {
    const rows = (await this.ds.query('SELECT * FROM gdpr_deletions WHERE user_id = $1', [userId])) as DeletionRow[];
    return rows[0] ? toDeletion(rows[0]) : null;
  }

  /** Cancels a deletion still in its grace; null when there is none, or it has started. */
  async cancelDeletion(userId: number): Promise<DeletionRecord | null> {
    const rows = returned<DeletionRow>(await this.ds.query("DELETE FROM gdpr_deletions WHERE user_id = $1 AND status = 'pending' RETURNING *", [userId]));
    return rows[0] ? toDeletion(rows[0]) : null;
  }

  /** Takes one deletion whose grace ended (or whose runner stopped answering for staleSeconds), skipping `tried`. Replica-safe. */
  async claimDueDeletion(now: Date, staleSeconds: number, tried: readonly number[] = []): Promise<DeletionRecord | null> {
    const rows = returned<DeletionRow>(
      await this.ds.query(
        `UPDATE gdpr_deletions SET status = 'running', claimed_at = now(), attempts = attempts + 1
          WHERE id = (SELECT id FROM gdpr_deletions
                       WHERE due_at <= $1 AND (status = 'pending' OR claimed_at IS NULL OR claimed_at < now() - make_interval(secs => $2))
                         AND NOT (id = ANY($3::int[]))
                       ORDER BY due_at FOR UPDATE SKIP LOCKED LIMIT 1)
          RETURNING *`,
        [now, staleSeconds, tried],
      ),
    );
    return rows[0] ? toDeletion(rows[0]) : null;
  }

  /** Lets a failed run be taken again by the next round. */
  async releaseDeletion(id: number): Promise<void> {
    await this.ds.query('UPDATE gdpr_deletions SET claimed_at = NULL WHERE id = $1', [id]);
  }

  async finishDeletion(id: number): Promise<void> {
    await this.ds.query('DELETE FROM gdpr_deletions WHERE id = $1', [id]);
  }

  /** Every token of the user stops working now (POST /auth/logout-all's mechanism), and the account is blocked. */
  async revokeTokens(userId: number): Promise<number> {
    const rows = returned<{ id: number }>(await this.ds.query('UPDATE users SET token_version = token_version + 1, blocked = true, updated_at = now() WHERE id = $1 RETURNING id', [userId]));
    return rows.length;
  }

  /** The account row and, by cascade, its credentials, auth records and exports; audit rows stay (user id only, spec 2.19). */
  async deleteAccount(userId: number): Promise<{ users: number; credentials: number; authRecords: number }> {
    return this.ds.transaction(async (m) => {
      const credentials = returned<{ id: number }>(await m.query('DELETE FROM credentials WHERE owner_id = $1 RETURNING id', [userId])).length;
      let authRecords = 0;
      for (const table of ['revoked_tokens', 'step_up_codes', 'step_up_grants']) {
        authRecords += returned<unknown>(await m.query(`DELETE FROM ${table} WHERE user_id = $1 RETURNING user_id`, [userId])).length;
      }
      const users = returned<{ id: number }>(await m.query('DELETE FROM users WHERE id = $1 RETURNING id', [userId])).length;
      return { users, credentials, authRecords };
    });
  }

  /** What identity holds about the user: the account, credentials' names (never their sealed fields) and the user's audit rows. */
  async accountCopy(userId: number): Promise<AccountCopy> {
    const account = (await this.ds.query('SELECT id, username, email, role, blocked, created_at, updated_at FROM users WHERE id = $1', [userId])) as Record<string, unknown>[];
    const credentials = (await this.ds.query('SELECT id, name, provider, description, field_names, created_at, updated_at FROM credentials WHERE owner_id = $1 ORDER BY id', [userId])) as Record<
      string,
      unknown
    >[];
    const auditRows = (await this.ds.query('SELECT id, action, tenant, correlation_id, details, created_at FROM audit_log WHERE actor_user_id = $1 ORDER BY id', [userId])) as Record<
      string,
      unknown
    >[];
    const quotas = (await this.ds.query('SELECT storage_bytes, llm_cost_monthly, executions_monthly, updated_at FROM user_quotas WHERE user_id = $1', [userId])) as Record<string, unknown>[];
    const quotaPeriods = (await this.ds.query('SELECT period, executions, warned FROM user_quota_periods WHERE user_id = $1 ORDER BY period', [userId])) as Record<string, unknown>[];
    return { account, credentials, auditRows, quotas, quotaPeriods };
  }
}
