import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * With GIN's fast-update pending list, `$contains` searches scan every title
 * inserted since the last vacuum (megabytes of them after a burst of uploads).
 * Titles are short, so updating the trigram index in place costs little at
 * insert and keeps searches fast at all times.
 */
export class DocumentTitleIndexWithoutPendingList1764000000022 implements MigrationInterface {
  name = 'DocumentTitleIndexWithoutPendingList1764000000022';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER INDEX documents_title_trgm_idx SET (fastupdate = off)');
    await q.query("SELECT gin_clean_pending_list('documents_title_trgm_idx'::regclass)");
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER INDEX documents_title_trgm_idx RESET (fastupdate)');
  }
}
