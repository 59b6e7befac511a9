import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Shared rate limits (issue 13): one fixed-window counter per key for every
 * rate limit and throttle, shared by all public API processes and replicas.
 * UNLOGGED: counters are hot, short-lived and cheap to lose (a PostgreSQL
 * crash resets every window, never makes one stricter), so their writes
 * skip the WAL. `reported` marks a window whose going over the limit has
 * been audited, so that a lock-out gives one row per window.
 */
export class CreateRateLimitCounters1764000000090 implements MigrationInterface {
  name = 'CreateRateLimitCounters1764000000090';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE UNLOGGED TABLE rate_limit_counters (
        key text PRIMARY KEY,
        count integer NOT NULL,
        expires_at timestamptz NOT NULL,
        reported boolean NOT NULL DEFAULT false
      )`);
    await q.query('CREATE INDEX rate_limit_counters_expires_idx ON rate_limit_counters (expires_at)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE rate_limit_counters');
  }
}
