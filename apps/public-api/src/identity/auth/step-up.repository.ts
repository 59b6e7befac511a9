import { DataSource } from 'typeorm';

export interface AttemptedCode {
  codeHash: string;
  /** Attempts counted so far, this one included. */
  attempts: number;
}

/**
 * Step-up codes and grants. Expiry is computed and compared with the
 * database clock, so that every replica agrees on it; attempts are counted
 * and codes consumed with single statements, so that parallel requests
 * cannot exceed the attempt limit or use a code twice.
 */
export class StepUpRepository {
  constructor(private readonly ds: DataSource) {}

  /** Stores a user's new code, replacing (and so invalidating) any previous one. */
  async replaceCode(userId: number, codeHash: string, ttlSeconds: number): Promise<void> {
    await this.ds.query(
      `INSERT INTO step_up_codes (user_id, code_hash, expires_at, attempts, created_at)
       VALUES ($1, $2, now() + make_interval(secs => $3), 0, now())
       ON CONFLICT (user_id) DO UPDATE
         SET code_hash = EXCLUDED.code_hash, expires_at = EXCLUDED.expires_at, attempts = 0, created_at = EXCLUDED.created_at`,
      [userId, codeHash, ttlSeconds],
    );
  }

  /** Counts one attempt against the user's live code; undefined when there is none or it is used up. */
  async countAttempt(userId: number, maxAttempts: number): Promise<AttemptedCode | undefined> {
    const rows = (await this.ds.query(
      `UPDATE step_up_codes SET attempts = attempts + 1
       WHERE user_id = $1 AND attempts < $2 AND expires_at > now()
       RETURNING code_hash, attempts`,
      [userId, maxAttempts],
    )) as [Array<{ code_hash: string; attempts: number }>, number];
    const row = rows[0][0];
    return row ? { codeHash: row.code_hash, attempts: row.attempts } : undefined;
  }

  /** Deletes the code if it is still the one given; true for exactly one caller. */
  async consumeCode(userId: number, codeHash: string): Promise<boolean> {
    const rows = (await this.ds.query('DELETE FROM step_up_codes WHERE user_id = $1 AND code_hash = $2 RETURNING user_id', [userId, codeHash])) as [unknown[], number];
    return rows[1] === 1;
  }

  async deleteCode(userId: number): Promise<void> {
    await this.ds.query('DELETE FROM step_up_codes WHERE user_id = $1', [userId]);
  }

  /** Grants (or renews) step-up for one token. */
  async grant(jti: string, userId: number, ttlSeconds: number): Promise<void> {
    await this.ds.query(
      `INSERT INTO step_up_grants (jti, user_id, expires_at, created_at)
       VALUES ($1, $2, now() + make_interval(secs => $3), now())
       ON CONFLICT (jti) DO UPDATE SET expires_at = EXCLUDED.expires_at`,
      [jti, userId, ttlSeconds],
    );
  }

  async hasLiveGrant(jti: string, userId: number): Promise<boolean> {
    const rows = (await this.ds.query('SELECT 1 FROM step_up_grants WHERE jti = $1 AND user_id = $2 AND expires_at > now()', [jti, userId])) as unknown[];
    return rows.length > 0;
  }

  async revokeGrant(jti: string): Promise<void> {
    await this.ds.query('DELETE FROM step_up_grants WHERE jti = $1', [jti]);
  }

  /** Deletes expired codes and grants. */
  async purgeExpired(): Promise<number> {
    const codes = (await this.ds.query('DELETE FROM step_up_codes WHERE expires_at <= now()')) as [unknown[], number];
    const grants = (await this.ds.query('DELETE FROM step_up_grants WHERE expires_at <= now()')) as [unknown[], number];
    return codes[1] + grants[1];
  }
}
