import { MigrationInterface, QueryRunner } from 'typeorm';

/** Retention (issue #15 item 5) finds old finished executions and settled event logs through these. */
export class AddRetentionIndexes1764000000231 implements MigrationInterface {
  name = 'AddRetentionIndexes1764000000231';

  async up(q: QueryRunner): Promise<void> {
    await q.query("CREATE INDEX workflow_executions_finished_idx ON workflow_executions (completed_at) WHERE status IN ('completed', 'failed', 'cancelled')");
    await q.query("CREATE INDEX event_logs_settled_idx ON event_logs (received_at) WHERE status IN ('processed', 'ignored', 'failed')");
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX event_logs_settled_idx');
    await q.query('DROP INDEX workflow_executions_finished_idx');
  }
}
