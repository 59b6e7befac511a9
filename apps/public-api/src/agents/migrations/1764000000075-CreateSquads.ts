import { MigrationInterface, QueryRunner } from 'typeorm';

/** Squads (spec 2.18): teams of agents with a task pipeline. */
export class CreateSquads1764000000075 implements MigrationInterface {
  name = 'CreateSquads1764000000075';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE squads (
        id serial PRIMARY KEY,
        owner_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        name varchar(255) NOT NULL,
        slug varchar(100) NOT NULL UNIQUE,
        description text NULL,
        process varchar(20) NOT NULL DEFAULT 'sequential' CHECK (process IN ('sequential', 'hierarchical')),
        manager_agent_id integer NULL REFERENCES agents (id) ON DELETE SET NULL,
        agents jsonb NOT NULL DEFAULT '[]'::jsonb,
        tasks jsonb NOT NULL DEFAULT '[]'::jsonb,
        max_total_iterations integer NOT NULL DEFAULT 30 CHECK (max_total_iterations BETWEEN 1 AND 500),
        active boolean NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query('CREATE INDEX squads_owner_created_idx ON squads (owner_id, created_at DESC, id DESC)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE squads');
  }
}
