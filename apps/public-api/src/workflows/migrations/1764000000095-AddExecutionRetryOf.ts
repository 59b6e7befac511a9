import { MigrationInterface, QueryRunner } from 'typeorm';

/** POST /workflow-executions/{id}/retry (issue #15): a retry is a new execution that names the failed one it continues. */
export class AddExecutionRetryOf1764000000095 implements MigrationInterface {
  name = 'AddExecutionRetryOf1764000000095';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE workflow_executions ADD COLUMN retry_of integer NULL REFERENCES workflow_executions (id) ON DELETE SET NULL');
    await q.query('CREATE INDEX workflow_executions_retry_of_idx ON workflow_executions (retry_of) WHERE retry_of IS NOT NULL');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE workflow_executions DROP COLUMN retry_of');
  }
}
