import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Retention (issue #15 item 5) finds old jobs by `updated_at`. Numbered after
 * the router's own migrations (TypeORM runs them in timestamp order and the
 * table comes from 1765000000000), with the suffix of the range this change
 * was given.
 */
export class AddRouterJobsUpdatedIndex1790000000232 implements MigrationInterface {
  name = 'AddRouterJobsUpdatedIndex1790000000232';

  async up(q: QueryRunner): Promise<void> {
    await q.query('CREATE INDEX router_jobs_updated_at_idx ON router_jobs (updated_at)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX router_jobs_updated_at_idx');
  }
}
