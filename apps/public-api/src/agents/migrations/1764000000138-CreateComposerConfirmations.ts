import { MigrationInterface, QueryRunner } from 'typeorm';

/** Previews the Composer's create tools issued: a creation runs only with the id of one, once (issue 13, item 10). */
export class CreateComposerConfirmations1764000000138 implements MigrationInterface {
  name = 'CreateComposerConfirmations1764000000138';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE composer_confirmations (
        id varchar(64) PRIMARY KEY,
        user_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        tool varchar(100) NOT NULL,
        arguments_hash char(64) NOT NULL,
        expires_at timestamptz NOT NULL,
        used_at timestamptz NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query('CREATE INDEX composer_confirmations_expires_at ON composer_confirmations (expires_at)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE IF EXISTS composer_confirmations');
  }
}
