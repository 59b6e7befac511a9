import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Checkpoints of task nodes, one row per (execution, node): written right
 * after a side-effecting node completes or fails, or when a user_input_task
 * pauses the run. A redelivered or resumed job reloads them and never repeats
 * a node that has a terminal row.
 */
export class CreateWorkflowNodeRuns1766000000000 implements MigrationInterface {
  name = 'CreateWorkflowNodeRuns1766000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE workflow_node_runs (
        execution_key text NOT NULL,
        node_id text NOT NULL,
        job_id text NOT NULL,
        task_type text NOT NULL,
        status text NOT NULL,
        output jsonb,
        error text,
        error_type text,
        correlation_token text,
        started_at timestamptz NOT NULL,
        completed_at timestamptz,
        cost double precision,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT workflow_node_runs_pkey PRIMARY KEY (execution_key, node_id),
        CONSTRAINT workflow_node_runs_status_check CHECK (status IN ('completed', 'failed', 'awaiting_input'))
      )`);
    await q.query('CREATE INDEX workflow_node_runs_updated_at_idx ON workflow_node_runs (updated_at)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE workflow_node_runs');
  }
}
