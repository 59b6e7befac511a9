import { MigrationInterface, QueryRunner } from 'typeorm';

/** Users' JWTs were kept with every job and read by nothing (issue #13): the column and what it held go. */
export class DropRouterJobsToken1790000000000 implements MigrationInterface {
  name = 'DropRouterJobsToken1790000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE router_jobs DROP COLUMN IF EXISTS token');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE router_jobs ADD COLUMN token text');
  }
}
