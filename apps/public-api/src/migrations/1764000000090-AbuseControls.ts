import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Shared abuse controls (issue 13): one fixed-window counter per key for
 * every rate limit and throttle, shared by all public API processes and
 * replicas. UNLOGGED: counters are hot, short-lived and cheap to lose (a
 * PostgreSQL crash resets every window, never makes one stricter), so their
 * writes skip the WAL. `reported` marks a window whose going over the limit
 * has been audited, so that a lock-out gives one row per window.
 *
 * `audit_aggregates` holds repeated failures (wrong webhook secrets) counted
 * per subject and window until the window closes and one audit row with the
 * count is written; it is logged, since what it holds is audit data.
 *
 * `users.token_version`: access tokens carry it (`tv`); POST
 * /auth/logout-all increments it, refusing every token issued before.
 */
export class AbuseControls1764000000090 implements MigrationInterface {
  name = 'AbuseControls1764000000090';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE UNLOGGED TABLE rate_limit_counters (
        key text PRIMARY KEY,
        count integer NOT NULL,
        expires_at timestamptz NOT NULL,
        reported boolean NOT NULL DEFAULT false
      )`);
    await q.query('CREATE INDEX rate_limit_counters_expires_idx ON rate_limit_counters (expires_at)');
    await q.query(`
      CREATE TABLE audit_aggregates (
        action varchar(100) NOT NULL,
        subject varchar(200) NOT NULL,
        window_start timestamptz NOT NULL,
        window_end timestamptz NOT NULL,
        count integer NOT NULL,
        actor_user_id integer NULL,
        correlation_id varchar(128) NULL,
        details jsonb NOT NULL DEFAULT '{}'::jsonb,
        PRIMARY KEY (action, subject, window_start)
      )`);
    await q.query('CREATE INDEX audit_aggregates_window_end_idx ON audit_aggregates (window_end)');
    await q.query('ALTER TABLE users ADD COLUMN token_version integer NOT NULL DEFAULT 0');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE users DROP COLUMN token_version');
    await q.query('DROP TABLE audit_aggregates');
    await q.query('DROP TABLE rate_limit_counters');
  }
}
