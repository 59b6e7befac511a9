import { MigrationInterface, QueryRunner } from 'typeorm';

/** Sites whose pages may call an agent's public chat (issue 18 item 8), as chatbots' `allowed_origins` (spec 2.12): empty accepts any origin. */
export class AgentAllowedOrigins1764000000252 implements MigrationInterface {
  name = 'AgentAllowedOrigins1764000000252';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE agents ADD COLUMN IF NOT EXISTS allowed_origins jsonb NOT NULL DEFAULT '[]'::jsonb`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE agents DROP COLUMN IF EXISTS allowed_origins');
  }
}
