import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The chunk's embedding also as packed little-endian float32 bytes, which
 * retrieval reads to score vector candidates: PostgreSQL's output functions
 * for real[] (array_send, array_out) cost about 35 µs per 256-dimension
 * vector, a bytea about 2.5 µs. `embedding real[]` stays the source of truth
 * (and feeds pgvector); rows written before this column fall back to it.
 */
export class RagEmbeddingBytes1764000000052 implements MigrationInterface {
  name = 'RagEmbeddingBytes1764000000052';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE rag_chunks ADD COLUMN embedding_f32 bytea NULL');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE rag_chunks DROP COLUMN embedding_f32');
  }
}
