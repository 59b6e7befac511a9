import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateClassificationJobs1764000000032 implements MigrationInterface {
  name = 'CreateClassificationJobs1764000000032';

  async up(q: QueryRunner): Promise<void> {
    // Who submitted which router job, so that only its owner reads its status. No foreign key to
    // collections: the job (and its result at the router) outlives a deleted collection.
    await q.query(`
      CREATE TABLE classification_jobs (
        job_id varchar(200) PRIMARY KEY,
        user_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        collection_id integer NOT NULL,
        job_type varchar(30) NOT NULL,
        document_ids jsonb NOT NULL DEFAULT '[]',
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT classification_jobs_type_check CHECK (job_type IN ('classification', 'document_extraction', 'OCR'))
      )`);
    await q.query('CREATE INDEX classification_jobs_user_idx ON classification_jobs (user_id, created_at DESC)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE classification_jobs');
  }
}
