import { MigrationInterface, QueryRunner } from 'typeorm';

/** Webhooks (spec 2.14): triggers of an activity; the secret is kept only as its SHA-256. */
export class CreateWebhooks1764000000072 implements MigrationInterface {
  name = 'CreateWebhooks1764000000072';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webhooks (
        id serial PRIMARY KEY,
        owner_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        activity_id integer NOT NULL REFERENCES activities (id) ON DELETE CASCADE,
        name varchar(255) NOT NULL,
        secret_hash char(64) NOT NULL,
        previous_secret_hash char(64) NULL,
        previous_secret_expires_at timestamptz NULL,
        active boolean NOT NULL DEFAULT true,
        event_type varchar(100) NULL,
        accept_files boolean NOT NULL DEFAULT true,
        max_file_size_mb integer NOT NULL DEFAULT 10 CHECK (max_file_size_mb BETWEEN 1 AND 50),
        allowed_mime_types jsonb NOT NULL,
        auto_enable_rag boolean NOT NULL DEFAULT false,
        allowed_origins jsonb NOT NULL DEFAULT '[]'::jsonb,
        trigger_count integer NOT NULL DEFAULT 0,
        last_triggered_at timestamptz NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query('CREATE INDEX webhooks_owner_created_idx ON webhooks (owner_id, created_at DESC, id DESC)');
    await q.query('CREATE INDEX webhooks_activity_idx ON webhooks (activity_id)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE webhooks');
  }
}
