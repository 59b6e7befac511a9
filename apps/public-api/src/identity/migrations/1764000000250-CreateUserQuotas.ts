import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Per-user quotas (issue 18 item 3, spec 8 "Quota warning"): an administrator's
 * overrides of the configured defaults (null = the default), and each user's
 * monthly counters: executions started and the quota warnings already mailed
 * in that month (one mail per quota and period).
 */
export class CreateUserQuotas1764000000250 implements MigrationInterface {
  name = 'CreateUserQuotas1764000000250';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE user_quotas (
        user_id integer PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
        storage_bytes bigint NULL CHECK (storage_bytes IS NULL OR storage_bytes >= 0),
        llm_cost_monthly numeric(14, 6) NULL CHECK (llm_cost_monthly IS NULL OR llm_cost_monthly >= 0),
        executions_monthly integer NULL CHECK (executions_monthly IS NULL OR executions_monthly >= 0),
        updated_by integer NULL REFERENCES users (id) ON DELETE SET NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE user_quota_periods (
        user_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        period date NOT NULL,
        executions integer NOT NULL DEFAULT 0 CHECK (executions >= 0),
        warned text[] NOT NULL DEFAULT '{}',
        PRIMARY KEY (user_id, period)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE user_quota_periods');
    await q.query('DROP TABLE user_quotas');
  }
}
