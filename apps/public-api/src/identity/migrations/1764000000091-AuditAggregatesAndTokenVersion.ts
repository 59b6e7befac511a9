import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 13. `audit_aggregates` holds repeated failures (wrong webhook
 * secrets) counted per subject and window until the window ends and one
 * audit row with the count is written; it is logged, since what it holds is
 * audit data.
 *
 * `users.token_version`: access tokens carry it (`tv`); POST
 * /auth/logout-all increments it, refusing every token issued before.
 */
export class AuditAggregatesAndTokenVersion1764000000091 implements MigrationInterface {
  name = 'AuditAggregatesAndTokenVersion1764000000091';

  async up(q: QueryRunner): Promise<void> {
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
  }
}
