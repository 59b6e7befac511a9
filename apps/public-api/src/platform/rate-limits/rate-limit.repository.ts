import type { PublicApiDatabase } from '../database';

/** A key's count in its current window, and the whole seconds until that window ends (at least 1). */
export interface WindowCount {
  count: number;
  retryAfterSeconds: number;
}

/**
 * Fixed-window counters in PostgreSQL (table rate_limit_counters), shared by
 * every process and replica of the public API. Each operation is one
 * statement, atomic under concurrency, and windows are timed by the
 * database's clock, so that every process agrees on them.
 */
export class RateLimitRepository {
  constructor(private readonly database: PublicApiDatabase) {}

  /** Adds one to the key's count, opening a new window of `windowSeconds` when there is none or it has ended. */
  async hit(key: string, windowSeconds: number): Promise<WindowCount> {
    const rows = (await this.database.query(
      `INSERT INTO rate_limit_counters AS c (key, count, expires_at)
       VALUES ($1, 1, now() + make_interval(secs => $2))
       ON CONFLICT (key) DO UPDATE
         SET count = CASE WHEN c.expires_at <= now() THEN 1 ELSE c.count + 1 END,
             reported = CASE WHEN c.expires_at <= now() THEN false ELSE c.reported END,
             expires_at = CASE WHEN c.expires_at <= now() THEN EXCLUDED.expires_at ELSE c.expires_at END
       RETURNING count, ${RETRY_AFTER} AS retry_after`,
      [key, windowSeconds],
    )) as Array<{ count: number; retry_after: number }>;
    return toWindowCount(rows[0]!);
  }

  /** The key's count in its live window, without counting; undefined when it has none. */
  async peek(key: string): Promise<WindowCount | undefined> {
    const rows = (await this.database.query(`SELECT c.count, ${RETRY_AFTER} AS retry_after FROM rate_limit_counters c WHERE c.key = $1 AND c.expires_at > now()`, [key])) as Array<{
      count: number;
      retry_after: number;
    }>;
    return rows[0] ? toWindowCount(rows[0]) : undefined;
  }

  /** Takes back one hit of the key's live window (an attempt that turned out not to count). */
  async release(key: string): Promise<void> {
    await this.database.query('UPDATE rate_limit_counters SET count = count - 1 WHERE key = $1 AND expires_at > now() AND count > 0', [key]);
  }

  /** True for exactly one caller per window: the first to report the key's live window. */
  async markReported(key: string): Promise<boolean> {
    const rows = (await this.database.query('UPDATE rate_limit_counters SET reported = true WHERE key = $1 AND expires_at > now() AND NOT reported RETURNING key', [key])) as [unknown[], number];
    return rows[1] === 1;
  }

  /** Deletes the windows that have ended. */
  async purgeExpired(): Promise<number> {
    const rows = (await this.database.query('DELETE FROM rate_limit_counters WHERE expires_at <= now()')) as [unknown[], number];
    return rows[1];
  }
}

const RETRY_AFTER = 'greatest(1, ceil(extract(epoch FROM c.expires_at - now())))::int';

function toWindowCount(row: { count: number; retry_after: number }): WindowCount {
  return { count: Number(row.count), retryAfterSeconds: Number(row.retry_after) };
}
