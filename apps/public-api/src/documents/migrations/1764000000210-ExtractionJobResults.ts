import { MigrationInterface, QueryRunner } from 'typeorm';

export class ExtractionJobResults1764000000210 implements MigrationInterface {
  name = 'ExtractionJobResults1764000000210';

  async up(q: QueryRunner): Promise<void> {
    // The public API owns each extraction job's outcome (issue #12 item 3): the results consumer writes it
    // here, and GET /jobs/{job_id}/status reads it instead of asking the router. A job recorded before this
    // migration reads `queued` until its next result arrives (results already applied at the router are not copied).
    await q.query(`
      ALTER TABLE classification_jobs
        ADD COLUMN status varchar(30) NOT NULL DEFAULT 'queued',
        ADD COLUMN outputs jsonb,
        ADD COLUMN error text,
        ADD COLUMN last_sequence bigint,
        ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now(),
        ADD COLUMN completed_at timestamptz,
        ADD CONSTRAINT classification_jobs_status_check CHECK (status IN ('queued', 'processing', 'awaiting_user_input', 'completed', 'failed'))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE classification_jobs
        DROP CONSTRAINT classification_jobs_status_check,
        DROP COLUMN status, DROP COLUMN outputs, DROP COLUMN error, DROP COLUMN last_sequence, DROP COLUMN updated_at, DROP COLUMN completed_at`);
  }
}
