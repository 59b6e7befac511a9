import { MigrationInterface, QueryRunner } from 'typeorm';

/** The credential store (spec 2.13, 4.13): secret fields sealed with AES-256-GCM, names kept in clear for display. */
export class CreateCredentials1764000000071 implements MigrationInterface {
  name = 'CreateCredentials1764000000071';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE credentials (
        id serial PRIMARY KEY,
        owner_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        name varchar(255) NOT NULL,
        provider varchar(100) NOT NULL,
        description text NULL,
        field_names jsonb NOT NULL DEFAULT '[]'::jsonb,
        sealed_fields text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query('CREATE INDEX credentials_owner_created_idx ON credentials (owner_id, created_at DESC, id DESC)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE credentials');
  }
}
