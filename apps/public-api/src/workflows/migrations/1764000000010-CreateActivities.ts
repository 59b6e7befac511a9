import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateActivities1764000000010 implements MigrationInterface {
  name = 'CreateActivities1764000000010';

  async up(q: QueryRunner): Promise<void> {
    // Both status vocabularies of spec 3.4 are accepted. A user-level activity always has an
    // owner; system (and internal) ones may be ownerless (seeded items such as solution packs).
    await q.query(`
      CREATE TABLE activities (
        id serial PRIMARY KEY,
        name varchar(255) NOT NULL,
        description text,
        workflow_type varchar(50) NOT NULL DEFAULT 'sequential',
        status varchar(20) NOT NULL DEFAULT 'draft',
        level varchar(20) NOT NULL DEFAULT 'user',
        owner_id integer REFERENCES users(id) ON DELETE CASCADE,
        workflow_definition jsonb NOT NULL,
        execution_deadline_seconds integer,
        data_shield_policy jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT activities_status_check CHECK (status IN ('draft', 'active', 'paused', 'archived', 'published')),
        CONSTRAINT activities_level_check CHECK (level IN ('system', 'user', 'internal')),
        CONSTRAINT activities_user_level_owner_check CHECK (level <> 'user' OR owner_id IS NOT NULL),
        CONSTRAINT activities_deadline_check CHECK (execution_deadline_seconds IS NULL OR execution_deadline_seconds > 0)
      )`);
    await q.query('CREATE INDEX activities_owner_id_idx ON activities (owner_id)');
    await q.query("CREATE INDEX activities_system_idx ON activities (id) WHERE level = 'system'");
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE activities');
  }
}
