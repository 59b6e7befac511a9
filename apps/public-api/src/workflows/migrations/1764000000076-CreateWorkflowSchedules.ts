import { MigrationInterface, QueryRunner } from 'typeorm';

/** Workflow schedules (spec 2.15): cron triggers of an activity, claimed by any replica with SKIP LOCKED. */
export class CreateWorkflowSchedules1764000000076 implements MigrationInterface {
  name = 'CreateWorkflowSchedules1764000000076';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE workflow_schedules (
        id serial PRIMARY KEY,
        owner_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        activity_id integer NOT NULL REFERENCES activities (id) ON DELETE CASCADE,
        name varchar(255) NOT NULL,
        cron_expression varchar(120) NOT NULL,
        timezone varchar(64) NOT NULL DEFAULT 'UTC',
        is_active boolean NOT NULL DEFAULT true,
        skip_if_running boolean NOT NULL DEFAULT true,
        inputs jsonb NOT NULL DEFAULT '{}'::jsonb,
        last_run_at timestamptz NULL,
        next_run_at timestamptz NULL,
        last_status varchar(20) NOT NULL DEFAULT 'never_run' CHECK (last_status IN ('success', 'failed', 'running', 'queued', 'never_run')),
        last_execution_id integer NULL,
        last_error text NULL,
        run_count integer NOT NULL DEFAULT 0,
        failure_count integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query('CREATE INDEX workflow_schedules_due_idx ON workflow_schedules (next_run_at) WHERE is_active');
    await q.query('CREATE INDEX workflow_schedules_owner_idx ON workflow_schedules (owner_id, created_at DESC, id DESC)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE workflow_schedules');
  }
}
