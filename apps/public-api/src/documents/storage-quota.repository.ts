import { DataSource } from 'typeorm';

export type QuotaReservation = { ok: true; usedBytes: number } | { ok: false; usedBytes: number };

/**
 * Per-user storage accounting. Every change is one guarded statement on the
 * user's row, so concurrent uploads serialise on its row lock and the sum can
 * never pass the quota.
 */
export class StorageQuotaRepository {
  constructor(private readonly ds: DataSource) {}

  /** Adds `bytes` to the user's usage unless that would pass `quotaBytes`. */
  async reserve(userId: number, bytes: number, quotaBytes: number): Promise<QuotaReservation> {
    if (bytes > quotaBytes) return { ok: false, usedBytes: await this.usedBytes(userId) };
    const rows = (await this.ds.query(
      `INSERT INTO user_storage_usage AS s (user_id, used_bytes) VALUES ($1, $2)
       ON CONFLICT (user_id) DO UPDATE SET used_bytes = s.used_bytes + EXCLUDED.used_bytes, updated_at = now()
       WHERE s.used_bytes + EXCLUDED.used_bytes <= $3
       RETURNING used_bytes`,
      [userId, bytes, quotaBytes],
    )) as { used_bytes: string }[];
    const row = rows[0];
    if (row) return { ok: true, usedBytes: Number(row.used_bytes) };
    return { ok: false, usedBytes: await this.usedBytes(userId) };
  }

  /** Gives back bytes reserved by a failed upload or held by a deleted document. */
  async release(userId: number, bytes: number): Promise<void> {
    if (bytes <= 0) return;
    await this.ds.query('UPDATE user_storage_usage SET used_bytes = GREATEST(used_bytes - $2, 0), updated_at = now() WHERE user_id = $1', [userId, bytes]);
  }

  async usedBytes(userId: number): Promise<number> {
    const rows = (await this.ds.query('SELECT used_bytes FROM user_storage_usage WHERE user_id = $1', [userId])) as { used_bytes: string }[];
    return rows[0] ? Number(rows[0].used_bytes) : 0;
  }
}
