import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhook triggers answer once their execution is committed `queued` with
 * `start_pending` (issue #16 item 6); the start follows the answer, and a
 * sweep starts whatever a process did not (docs/decisions.md, "Webhook
 * triggers accepted before their start").
 */
export class AddExecutionStartPending1790000000530 implements MigrationInterface {
  name = 'AddExecutionStartPending1790000000530';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE workflow_executions ADD COLUMN start_pending boolean NOT NULL DEFAULT false');
    await q.query("CREATE INDEX workflow_executions_start_pending_idx ON workflow_executions (user_id, id) WHERE status = 'queued' AND start_pending");
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX IF EXISTS workflow_executions_start_pending_idx');
    await q.query('ALTER TABLE workflow_executions DROP COLUMN start_pending');
  }
}
