import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Keeps the columns retrieval reads for many chunks (the tsvector and the
 * packed embedding) inside the row: a chunk row outgrows the 2 kB TOAST
 * target, and by default the largest value, the tsvector, was moved out of
 * line, so every `@@` of a full-text scan fetched it from the TOAST table
 * (measured: about 37 µs per scored chunk, 8 µs once inline). With MAIN, the
 * content and the real[] embedding, read only for the few chunks answered,
 * move out instead. Applies to rows written from now on.
 */
export class RagChunkStorage1764000000053 implements MigrationInterface {
  name = 'RagChunkStorage1764000000053';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE rag_chunks ALTER COLUMN tsv SET STORAGE MAIN, ALTER COLUMN embedding_f32 SET STORAGE MAIN');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE rag_chunks ALTER COLUMN tsv SET STORAGE EXTENDED, ALTER COLUMN embedding_f32 SET STORAGE EXTENDED');
  }
}
