import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateAuthTables1764000000001 implements MigrationInterface {
  name = 'CreateAuthTables1764000000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE revoked_tokens (
        jti uuid PRIMARY KEY,
        user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        expires_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query('CREATE INDEX revoked_tokens_expires_at_idx ON revoked_tokens (expires_at)');
    await q.query('CREATE INDEX revoked_tokens_user_id_idx ON revoked_tokens (user_id)');

    await q.query(`
      CREATE TABLE step_up_codes (
        user_id integer PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
        code_hash varchar(64) NOT NULL,
        expires_at timestamptz NOT NULL,
        attempts integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query('CREATE INDEX step_up_codes_expires_at_idx ON step_up_codes (expires_at)');

    await q.query(`
      CREATE TABLE step_up_grants (
        jti uuid PRIMARY KEY,
        user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        expires_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query('CREATE INDEX step_up_grants_expires_at_idx ON step_up_grants (expires_at)');
    await q.query('CREATE INDEX step_up_grants_user_id_idx ON step_up_grants (user_id)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE step_up_grants');
    await q.query('DROP TABLE step_up_codes');
    await q.query('DROP TABLE revoked_tokens');
  }
}
