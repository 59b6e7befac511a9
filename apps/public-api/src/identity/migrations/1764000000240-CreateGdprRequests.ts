import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Data exports and account deletions (issue #18, spec 2.19 and 8). An export
 * row goes with its account (its archive is removed first by the deletion);
 * a deletion row holds the user id only, has no foreign key, and is removed
 * once the deletion completes: the audit rows are what remains of it.
 */
export class CreateGdprRequests1764000000240 implements MigrationInterface {
  name = 'CreateGdprRequests1764000000240';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE gdpr_exports (
        id serial PRIMARY KEY,
        user_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        status varchar(16) NOT NULL DEFAULT 'pending',
        storage_key varchar(512) NULL,
        size_bytes bigint NULL,
        error text NULL,
        attempts integer NOT NULL DEFAULT 0,
        claimed_at timestamptz NULL,
        requested_at timestamptz NOT NULL DEFAULT now(),
        ready_at timestamptz NULL,
        expires_at timestamptz NULL,
        CONSTRAINT gdpr_exports_status_check CHECK (status IN ('pending', 'ready', 'failed'))
      )`);
    await q.query('CREATE INDEX gdpr_exports_user_idx ON gdpr_exports (user_id, id DESC)');
    await q.query("CREATE INDEX gdpr_exports_pending_idx ON gdpr_exports (id) WHERE status = 'pending'");
    await q.query('CREATE INDEX gdpr_exports_expiry_idx ON gdpr_exports (expires_at) WHERE expires_at IS NOT NULL');
    await q.query(`
      CREATE TABLE gdpr_deletions (
        id serial PRIMARY KEY,
        user_id integer NOT NULL,
        status varchar(16) NOT NULL DEFAULT 'pending',
        requested_at timestamptz NOT NULL DEFAULT now(),
        due_at timestamptz NOT NULL,
        claimed_at timestamptz NULL,
        attempts integer NOT NULL DEFAULT 0,
        CONSTRAINT gdpr_deletions_status_check CHECK (status IN ('pending', 'running'))
      )`);
    await q.query('CREATE UNIQUE INDEX gdpr_deletions_user_key ON gdpr_deletions (user_id)');
    await q.query('CREATE INDEX gdpr_deletions_due_idx ON gdpr_deletions (due_at)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE gdpr_deletions');
    await q.query('DROP TABLE gdpr_exports');
  }
}
