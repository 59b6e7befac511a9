import { MigrationInterface, QueryRunner } from 'typeorm';

/** Embedding sizes that get an approximate-nearest-neighbour index: the local engine's, and OpenAI's small and large models. */
export const PGVECTOR_INDEXED_DIMENSIONS = [256, 1536, 3072].filter((d) => d <= 2000);

/**
 * Only where the pgvector extension can be installed (the docker-compose
 * image has it; a plain PostgreSQL does not, and nothing changes there):
 * a `vector` copy of each chunk's embedding and an HNSW index per common
 * embedding size. Retrieval uses them when the column exists (see
 * rag/pgvector.ts); the real[] column stays the source of truth.
 */
export class RagPgvector1764000000051 implements MigrationInterface {
  name = 'RagPgvector1764000000051';

  async up(q: QueryRunner): Promise<void> {
    const available = (await q.query("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'")) as unknown[];
    if (available.length === 0) return;
    await q.query('CREATE EXTENSION IF NOT EXISTS vector');
    await q.query('ALTER TABLE rag_chunks ADD COLUMN embedding_vec vector NULL');
    for (const dims of PGVECTOR_INDEXED_DIMENSIONS) {
      await q.query(`CREATE INDEX rag_chunks_embedding_vec_${dims}_idx ON rag_chunks USING hnsw ((embedding_vec::vector(${dims})) vector_cosine_ops) WHERE vector_dims(embedding_vec) = ${dims}`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE rag_chunks DROP COLUMN IF EXISTS embedding_vec');
  }
}
