import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The event bus (spec 2.16, 2.17, 3.6, 4.10): sources, subscriptions, the
 * event log, the settle store's two tables (libs/cloud-drive settle-store.ts),
 * drive grants (tokens sealed with the credentials key), e-mail cursors, the
 * runs an event started (one per event and subscription), and the
 * idempotency keys of imported documents.
 */
export class CreateEventBus1764000000092 implements MigrationInterface {
  name = 'CreateEventBus1764000000092';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE event_sources (
        id serial PRIMARY KEY,
        owner_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        name varchar(255) NOT NULL,
        source_type varchar(20) NOT NULL CHECK (source_type IN ('cloud_drive', 'webhook', 'email', 'slack')),
        config jsonb NOT NULL DEFAULT '{}'::jsonb,
        drive_item_id text NULL,
        drive_item_type varchar(10) NULL CHECK (drive_item_type IN ('file', 'folder')),
        drive_item_name text NULL,
        watch_channel_id varchar(100) NULL UNIQUE,
        watch_channel_token varchar(100) NULL,
        watch_resource_id text NULL,
        watch_expiry timestamptz NULL,
        page_token text NULL,
        is_active boolean NOT NULL DEFAULT true,
        last_event_at timestamptz NULL,
        event_count integer NOT NULL DEFAULT 0,
        error_message text NULL,
        read_after timestamptz NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query('CREATE INDEX event_sources_owner_idx ON event_sources (owner_id, id)');
    await q.query('CREATE INDEX event_sources_watch_idx ON event_sources (watch_expiry) WHERE is_active');
    await q.query('CREATE INDEX event_sources_read_after_idx ON event_sources (read_after) WHERE read_after IS NOT NULL');

    await q.query(`
      CREATE TABLE event_subscriptions (
        id serial PRIMARY KEY,
        owner_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        event_source_id integer NOT NULL REFERENCES event_sources (id) ON DELETE CASCADE,
        activity_id integer NOT NULL REFERENCES activities (id) ON DELETE CASCADE,
        name varchar(255) NOT NULL,
        event_types jsonb NOT NULL DEFAULT '["*"]'::jsonb,
        filter jsonb NOT NULL DEFAULT '{}'::jsonb,
        input_mapping jsonb NOT NULL DEFAULT '{}'::jsonb,
        is_active boolean NOT NULL DEFAULT true,
        trigger_count integer NOT NULL DEFAULT 0,
        last_triggered_at timestamptz NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query('CREATE INDEX event_subscriptions_source_idx ON event_subscriptions (event_source_id) WHERE is_active');
    await q.query('CREATE INDEX event_subscriptions_owner_idx ON event_subscriptions (owner_id, id)');

    await q.query(`
      CREATE TABLE event_logs (
        id serial PRIMARY KEY,
        event_id varchar(100) NOT NULL UNIQUE,
        owner_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        event_source_id integer NOT NULL REFERENCES event_sources (id) ON DELETE CASCADE,
        source_type varchar(20) NOT NULL,
        event_type varchar(40) NOT NULL,
        payload jsonb NOT NULL DEFAULT '{}'::jsonb,
        status varchar(12) NOT NULL DEFAULT 'received' CHECK (status IN ('received', 'processing', 'processed', 'ignored', 'failed')),
        subscriptions_matched integer NOT NULL DEFAULT 0,
        workflows_triggered jsonb NOT NULL DEFAULT '[]'::jsonb,
        error_message text NULL,
        attempts integer NOT NULL DEFAULT 0,
        lease_until timestamptz NULL,
        received_at timestamptz NOT NULL DEFAULT now(),
        processed_at timestamptz NULL
      )`);
    await q.query(`CREATE INDEX event_logs_open_idx ON event_logs (received_at) WHERE status IN ('received', 'processing')`);
    await q.query('CREATE INDEX event_logs_owner_idx ON event_logs (owner_id, received_at DESC, id DESC)');
    await q.query('CREATE INDEX event_logs_source_idx ON event_logs (event_source_id, received_at DESC)');

    await q.query(`
      CREATE TABLE event_triggers (
        event_log_id integer NOT NULL REFERENCES event_logs (id) ON DELETE CASCADE,
        subscription_id integer NOT NULL REFERENCES event_subscriptions (id) ON DELETE CASCADE,
        execution_id integer NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (event_log_id, subscription_id)
      )`);

    await q.query(`
      CREATE TABLE drive_file_pending (
        source_id integer NOT NULL REFERENCES event_sources (id) ON DELETE CASCADE,
        file_id text NOT NULL,
        version text NOT NULL,
        size bigint NOT NULL,
        stable_since timestamptz NOT NULL,
        file jsonb NOT NULL,
        PRIMARY KEY (source_id, file_id)
      )`);
    await q.query('CREATE INDEX drive_file_pending_due_idx ON drive_file_pending (stable_since)');
    await q.query(`
      CREATE TABLE drive_file_emissions (
        source_id integer NOT NULL REFERENCES event_sources (id) ON DELETE CASCADE,
        file_id text NOT NULL,
        version text NOT NULL,
        event_id varchar(100) NOT NULL,
        emitted_at timestamptz NOT NULL,
        PRIMARY KEY (source_id, file_id)
      )`);

    await q.query(`
      CREATE TABLE cloud_drive_grants (
        user_id integer PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
        sealed_tokens text NOT NULL,
        status varchar(20) NOT NULL CHECK (status IN ('connected', 'needs_reconnect')),
        error_message text NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);

    await q.query(`
      CREATE TABLE email_source_cursors (
        source_id integer NOT NULL REFERENCES event_sources (id) ON DELETE CASCADE,
        mailbox text NOT NULL,
        uid_validity text NOT NULL,
        last_uid bigint NOT NULL,
        PRIMARY KEY (source_id, mailbox)
      )`);

    await q.query(`
      CREATE TABLE document_imports (
        user_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        idempotency_key varchar(200) NOT NULL,
        document_id integer NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (user_id, idempotency_key)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of [
      'document_imports',
      'email_source_cursors',
      'cloud_drive_grants',
      'drive_file_emissions',
      'drive_file_pending',
      'event_triggers',
      'event_logs',
      'event_subscriptions',
      'event_sources',
    ]) {
      await q.query(`DROP TABLE ${table}`);
    }
  }
}
