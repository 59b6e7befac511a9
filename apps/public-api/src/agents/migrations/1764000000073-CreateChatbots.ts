import { MigrationInterface, QueryRunner } from 'typeorm';

/** Chatbots (spec 2.12): public RAG chat over the owner's documents; the key is kept only as its SHA-256. */
export class CreateChatbots1764000000073 implements MigrationInterface {
  name = 'CreateChatbots1764000000073';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE chatbots (
        id serial PRIMARY KEY,
        owner_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        name varchar(255) NOT NULL,
        slug varchar(100) NOT NULL UNIQUE,
        active boolean NOT NULL DEFAULT true,
        api_key_hash char(64) NOT NULL,
        welcome_message text NULL,
        branding jsonb NOT NULL DEFAULT '{}'::jsonb,
        allowed_origins jsonb NOT NULL DEFAULT '[]'::jsonb,
        rate_limit integer NOT NULL DEFAULT 60 CHECK (rate_limit BETWEEN 1 AND 100000),
        query_count integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query('CREATE INDEX chatbots_owner_created_idx ON chatbots (owner_id, created_at DESC, id DESC)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE chatbots');
  }
}
