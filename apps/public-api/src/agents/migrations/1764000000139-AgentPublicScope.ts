import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What an agent's key holders reach (issue 13, item 11 and a low): the collection its owner made public to
 * the agent, and the key each public-chat session was made with. Sessions made by key holders before this
 * have no record of their key: they are closed to key holders; the owner still has them.
 */
export class AgentPublicScope1764000000139 implements MigrationInterface {
  name = 'AgentPublicScope1764000000139';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE agents ADD COLUMN IF NOT EXISTS public_collection_id integer NULL REFERENCES collections (id) ON DELETE SET NULL');
    await q.query('ALTER TABLE agent_conversations ADD COLUMN IF NOT EXISTS api_key_hash char(64) NULL');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE agent_conversations DROP COLUMN IF EXISTS api_key_hash');
    await q.query('ALTER TABLE agents DROP COLUMN IF EXISTS public_collection_id');
  }
}
