import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateRouterJobs1765000000000 implements MigrationInterface {
  name = 'CreateRouterJobs1765000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE router_jobs (
        job_id text PRIMARY KEY,
        job_type text NOT NULL,
        queue text NOT NULL,
        status text NOT NULL DEFAULT 'queued',
        token text,
        result jsonb,
        error text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        completed_at timestamptz,
        CONSTRAINT router_jobs_status_check CHECK (status IN ('queued', 'processing', 'awaiting_user_input', 'completed', 'failed')),
        CONSTRAINT router_jobs_job_type_check CHECK (job_type IN ('task_based_workflow', 'document_extraction', 'classification', 'OCR'))
      )`);
    await q.query('CREATE INDEX router_jobs_status_idx ON router_jobs (status)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE router_jobs');
  }
}
