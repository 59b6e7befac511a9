import { MigrationInterface, QueryRunner } from 'typeorm';

/** Agent keys are shown once (create, regenerate-key) and kept only as their SHA-256: the sealed copy goes. */
export class DropAgentKeySealed1764000000137 implements MigrationInterface {
  name = 'DropAgentKeySealed1764000000137';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE agents DROP COLUMN IF EXISTS api_key_sealed');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE agents ADD COLUMN IF NOT EXISTS api_key_sealed text NULL');
  }
}
