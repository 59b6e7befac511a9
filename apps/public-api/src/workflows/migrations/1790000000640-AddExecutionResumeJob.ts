import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A resume commits `running` before it submits its job to the router; a
 * process killed in between left the execution running with no job, and the
 * payload the user sent was nowhere but in that process. The resume now
 * keeps what its job carries besides the row (`resume_job`: the waiting
 * node and the payload) and when it was made (`resumed_at`), so the sweep
 * that submits unsubmitted starts again does the same for resumes
 * (docs/decisions.md, "Resumes are resubmitted; compressed bodies").
 */
export class AddExecutionResumeJob1790000000640 implements MigrationInterface {
  name = 'AddExecutionResumeJob1790000000640';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE workflow_executions ADD COLUMN resume_job jsonb, ADD COLUMN resumed_at timestamptz');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE workflow_executions DROP COLUMN resume_job, DROP COLUMN resumed_at');
  }
}
