import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Parked runs (issue #15 item 3): one row per execution whose wait_task or
 * retry backoff parked it. `parked` holds what each parked node needs to
 * continue; `job` is the message re-published to workflow_queue at
 * `wake_at` (NULL once re-published). Processors poll the due rows with
 * FOR UPDATE SKIP LOCKED, so any replica wakes any run.
 */
export class CreateWorkflowWakeups1764000000230 implements MigrationInterface {
  name = 'CreateWorkflowWakeups1764000000230';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE workflow_wakeups (
        execution_key text NOT NULL,
        job_id text NOT NULL,
        job jsonb NOT NULL,
        parked jsonb NOT NULL,
        wake_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT workflow_wakeups_pkey PRIMARY KEY (execution_key)
      )`);
    await q.query('CREATE INDEX workflow_wakeups_wake_at_idx ON workflow_wakeups (wake_at) WHERE wake_at IS NOT NULL');
    await q.query('CREATE INDEX workflow_wakeups_updated_at_idx ON workflow_wakeups (updated_at)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE workflow_wakeups');
  }
}
