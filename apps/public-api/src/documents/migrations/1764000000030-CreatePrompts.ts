import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreatePrompts1764000000030 implements MigrationInterface {
  name = 'CreatePrompts1764000000030';

  async up(q: QueryRunner): Promise<void> {
    // A user-level prompt always has an owner; system prompts may be ownerless (seeded ones are).
    await q.query(`
      CREATE TABLE prompts (
        id serial PRIMARY KEY,
        title varchar(255) NOT NULL,
        type varchar(20) NOT NULL,
        level varchar(10) NOT NULL,
        section varchar(255),
        description text,
        roles jsonb NOT NULL DEFAULT '[]',
        tasks jsonb NOT NULL DEFAULT '[]',
        instructions jsonb NOT NULL DEFAULT '[]',
        output_format varchar(10) NOT NULL DEFAULT 'json',
        example_output jsonb,
        version varchar(50) NOT NULL DEFAULT '1.0.0',
        owner_id integer REFERENCES users (id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT prompts_type_check CHECK (type IN ('extraction', 'classification', 'summarization')),
        CONSTRAINT prompts_level_check CHECK (level IN ('system', 'user')),
        CONSTRAINT prompts_output_format_check CHECK (output_format IN ('json', 'text')),
        CONSTRAINT prompts_user_level_owner_check CHECK (level <> 'user' OR owner_id IS NOT NULL)
      )`);
    await q.query('CREATE INDEX prompts_owner_created_idx ON prompts (owner_id, created_at DESC, id DESC)');
    await q.query("CREATE INDEX prompts_system_idx ON prompts (created_at DESC, id DESC) WHERE level = 'system'");
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE prompts');
  }
}
