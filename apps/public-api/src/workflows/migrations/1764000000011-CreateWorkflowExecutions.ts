import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateWorkflowExecutions1764000000011 implements MigrationInterface {
  name = 'CreateWorkflowExecutions1764000000011';

  async up(q: QueryRunner): Promise<void> {
    // job_id is the router job currently running the execution (wf_<id>, then
    // wf_<id>_resume_<n>); last_sequence is the highest `sequence` applied from
    // that job. The correlation token is kept as a SHA-256 hash (for the
    // constant-time check on resume) and sealed with AES-256-GCM (so GET /status
    // can hand it to the owner); both are cleared when the execution resumes.
    await q.query(`
      CREATE TABLE workflow_executions (
        id serial PRIMARY KEY,
        activity_id integer NOT NULL REFERENCES activities(id) ON DELETE CASCADE,
        user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        status varchar(30) NOT NULL DEFAULT 'queued',
        workflow_definition jsonb NOT NULL,
        inputs jsonb NOT NULL DEFAULT '{}'::jsonb,
        outputs jsonb,
        results jsonb,
        task_states jsonb NOT NULL DEFAULT '{}'::jsonb,
        error text,
        error_type varchar(50),
        failed_node varchar(255),
        awaiting_node varchar(255),
        awaiting_input_schema jsonb,
        correlation_token_hash char(64),
        correlation_token_sealed text,
        awaiting_since timestamptz,
        job_id varchar(200),
        resume_count integer NOT NULL DEFAULT 0,
        last_sequence bigint,
        deadline_at timestamptz,
        started_at timestamptz,
        completed_at timestamptz,
        last_progress_at timestamptz,
        total_cost numeric(14, 6) NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT workflow_executions_status_check
          CHECK (status IN ('queued', 'running', 'awaiting_user_input', 'completed', 'failed', 'cancelled'))
      )`);
    await q.query('CREATE INDEX workflow_executions_user_status_idx ON workflow_executions (user_id, status)');
    await q.query('CREATE INDEX workflow_executions_activity_created_idx ON workflow_executions (activity_id, created_at)');
    await q.query("CREATE INDEX workflow_executions_running_idx ON workflow_executions (last_progress_at) WHERE status = 'running'");

    await q.query(`
      CREATE TABLE workflow_execution_steps (
        id serial PRIMARY KEY,
        execution_id integer NOT NULL REFERENCES workflow_executions(id) ON DELETE CASCADE,
        node_id varchar(255) NOT NULL,
        step_name varchar(255) NOT NULL,
        step_type varchar(100),
        status varchar(20) NOT NULL,
        started_at timestamptz,
        completed_at timestamptz,
        duration_seconds numeric(14, 3),
        cost numeric(14, 6),
        result_summary text,
        error text,
        error_type varchar(50),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT workflow_execution_steps_execution_node_key UNIQUE (execution_id, node_id),
        CONSTRAINT workflow_execution_steps_status_check CHECK (status IN ('pending', 'running', 'completed', 'failed', 'skipped'))
      )`);
    await q.query('CREATE INDEX workflow_execution_steps_started_idx ON workflow_execution_steps (execution_id, started_at)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE workflow_execution_steps');
    await q.query('DROP TABLE workflow_executions');
  }
}
