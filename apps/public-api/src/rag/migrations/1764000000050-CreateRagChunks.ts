import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * RAG: the chunks of indexed documents and the id of each document's current
 * indexing job. Chunks carry their document's owner and visibility so that
 * retrieval restricts candidates with an index and a WHERE clause; they go
 * with their document (ON DELETE CASCADE). The full-text vector covers the
 * content and, weighted higher (B), the document's title as it was when the
 * chunk was written: a chunk deep in a handbook rarely repeats its name.
 */
export class CreateRagChunks1764000000050 implements MigrationInterface {
  name = 'CreateRagChunks1764000000050';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE documents ADD COLUMN rag_job_id uuid NULL');
    await q.query(`
      CREATE TABLE rag_chunks (
        id bigserial PRIMARY KEY,
        document_id integer NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
        owner_id integer NOT NULL,
        visibility varchar(10) NOT NULL,
        chunk_index integer NOT NULL,
        page integer NULL,
        heading text NULL,
        document_title varchar(255) NOT NULL DEFAULT '',
        content text NOT NULL,
        tsv tsvector GENERATED ALWAYS AS (setweight(to_tsvector('english', document_title), 'B') || to_tsvector('english', content)) STORED,
        embedding real[] NULL,
        embedding_model varchar(200) NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT rag_chunks_visibility_check CHECK (visibility IN ('user', 'global')),
        CONSTRAINT rag_chunks_embedding_check CHECK ((embedding IS NULL) = (embedding_model IS NULL)),
        CONSTRAINT rag_chunks_document_chunk_key UNIQUE (document_id, chunk_index)
      )`);
    // No pending list: a search never has to scan unmerged entries (latency stays flat after bulk indexing).
    await q.query('CREATE INDEX rag_chunks_tsv_idx ON rag_chunks USING gin (tsv) WITH (fastupdate = off)');
    // The caller's own chunks and the global ones, newest first (the bounded vector pre-filter).
    await q.query('CREATE INDEX rag_chunks_owner_idx ON rag_chunks (owner_id, id DESC)');
    await q.query("CREATE INDEX rag_chunks_global_idx ON rag_chunks (id DESC) WHERE visibility = 'global'");
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE rag_chunks');
    await q.query('ALTER TABLE documents DROP COLUMN rag_job_id');
  }
}
