import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Extracted text and its pages (often 100 KB and more per document) are
 * compressed with lz4 instead of PostgreSQL's default pglz, where the server
 * supports it (PostgreSQL 14+ built with lz4): pglz took about as much of the
 * database's CPU per upload as the rest of the insert. Rows written before
 * keep their compression; both read back the same.
 */
export class DocumentTextLz41764000000061 implements MigrationInterface {
  name = 'DocumentTextLz41764000000061';

  async up(q: QueryRunner): Promise<void> {
    if (!(await lz4Available(q))) return;
    await q.query('ALTER TABLE documents ALTER COLUMN extracted_text SET COMPRESSION lz4, ALTER COLUMN text_pages SET COMPRESSION lz4');
  }

  async down(q: QueryRunner): Promise<void> {
    if (!(await lz4Available(q))) return;
    await q.query('ALTER TABLE documents ALTER COLUMN extracted_text SET COMPRESSION default, ALTER COLUMN text_pages SET COMPRESSION default');
  }
}

async function lz4Available(q: QueryRunner): Promise<boolean> {
  const rows = (await q.query("SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)")) as unknown[];
  return rows.length > 0;
}
