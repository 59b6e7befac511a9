import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * No statement looks router jobs up by status alone (every read and update is
 * by job_id, retention by updated_at), yet each job's insert and each status
 * change wrote an entry into this index (a status change is never a HOT
 * update). Dropped to save that write per job and per result (issue #16).
 */
export class DropRouterJobsStatusIndex1790000000540 implements MigrationInterface {
  name = 'DropRouterJobsStatusIndex1790000000540';

  async up(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX IF EXISTS router_jobs_status_idx');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('CREATE INDEX IF NOT EXISTS router_jobs_status_idx ON router_jobs (status)');
  }
}
