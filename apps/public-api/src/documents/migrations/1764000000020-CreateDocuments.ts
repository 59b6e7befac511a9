import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateDocuments1764000000020 implements MigrationInterface {
  name = 'CreateDocuments1764000000020';

  async up(q: QueryRunner): Promise<void> {
    // Trigram indexes keep `filters[title][$contains]` (LIKE '%...%') fast on large tables.
    await q.query('CREATE EXTENSION IF NOT EXISTS pg_trgm');
    await q.query(`
      CREATE TABLE documents (
        id serial PRIMARY KEY,
        title varchar(255) NOT NULL,
        description text NULL,
        tags jsonb NOT NULL DEFAULT '[]',
        visibility varchar(10) NOT NULL DEFAULT 'user',
        global_key varchar(128) NULL,
        owner_id integer NOT NULL REFERENCES users (id) ON DELETE RESTRICT,
        storage_key varchar(512) NOT NULL,
        original_storage_key varchar(512) NULL,
        original_filename varchar(255) NOT NULL,
        mime_type varchar(127) NOT NULL,
        original_mime_type varchar(127) NULL,
        file_size bigint NOT NULL,
        storage_bytes bigint NOT NULL,
        sha256 char(64) NOT NULL,
        document_type jsonb NULL,
        metadata jsonb NOT NULL DEFAULT '{}',
        text_status varchar(20) NOT NULL DEFAULT 'pending',
        text_error text NULL,
        text_attempts integer NOT NULL DEFAULT 0,
        text_claimed_at timestamptz NULL,
        extracted_text text NULL,
        text_pages jsonb NULL,
        rag_enabled boolean NOT NULL DEFAULT false,
        rag_status varchar(20) NOT NULL DEFAULT 'disabled',
        rag_processing_status varchar(20) NULL,
        rag_chunk_count integer NOT NULL DEFAULT 0,
        rag_error text NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT documents_visibility_check CHECK (visibility IN ('user', 'global')),
        CONSTRAINT documents_global_key_check CHECK (global_key IS NULL OR visibility = 'global'),
        CONSTRAINT documents_text_status_check CHECK (text_status IN ('pending', 'processing', 'completed', 'failed', 'not_applicable')),
        CONSTRAINT documents_rag_status_check CHECK (rag_status IN ('enabled', 'disabled', 'processing', 'failed')),
        CONSTRAINT documents_rag_processing_status_check CHECK (rag_processing_status IS NULL OR rag_processing_status IN ('queued', 'processing', 'completed', 'failed')),
        CONSTRAINT documents_sizes_check CHECK (file_size >= 0 AND storage_bytes >= file_size AND rag_chunk_count >= 0)
      )`);
    await q.query('CREATE UNIQUE INDEX documents_global_key_key ON documents (global_key)');
    await q.query('CREATE INDEX documents_owner_created_idx ON documents (owner_id, created_at DESC, id DESC)');
    await q.query('CREATE INDEX documents_title_trgm_idx ON documents USING gin (title gin_trgm_ops)');
    await q.query("CREATE INDEX documents_global_created_idx ON documents (created_at DESC, id DESC) WHERE visibility = 'global'");
    // The text-extraction sweeper looks only at unfinished rows.
    await q.query("CREATE INDEX documents_text_unfinished_idx ON documents (id) WHERE text_status IN ('pending', 'processing')");
    await q.query(`
      CREATE TABLE user_storage_usage (
        user_id integer PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
        used_bytes bigint NOT NULL DEFAULT 0,
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT user_storage_usage_used_bytes_check CHECK (used_bytes >= 0)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE user_storage_usage');
    await q.query('DROP TABLE documents');
  }
}
