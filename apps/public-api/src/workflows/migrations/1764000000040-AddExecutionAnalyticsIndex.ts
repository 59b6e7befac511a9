import { MigrationInterface, QueryRunner } from 'typeorm';

export class AddExecutionAnalyticsIndex1764000000040 implements MigrationInterface {
  name = 'AddExecutionAnalyticsIndex1764000000040';

  async up(q: QueryRunner): Promise<void> {
    // GET /workflows/metrics/overview reads one user's executions created since a point in time.
    await q.query('CREATE INDEX workflow_executions_user_created_idx ON workflow_executions (user_id, created_at)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX workflow_executions_user_created_idx');
  }
}
