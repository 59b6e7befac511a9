import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Prompt publishing (issue 18 item 4): when a prompt's template last passed
 * the linter (or an administrator overrode it, with the reason), who
 * published it and which version. An edit of the template clears it.
 */
export class PromptPublishing1764000000251 implements MigrationInterface {
  name = 'PromptPublishing1764000000251';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE prompts
        ADD COLUMN published_at timestamptz NULL,
        ADD COLUMN published_by integer NULL REFERENCES users (id) ON DELETE SET NULL,
        ADD COLUMN published_version varchar(50) NULL,
        ADD COLUMN publish_override_reason text NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE prompts DROP COLUMN published_at, DROP COLUMN published_by, DROP COLUMN published_version, DROP COLUMN publish_override_reason');
  }
}
