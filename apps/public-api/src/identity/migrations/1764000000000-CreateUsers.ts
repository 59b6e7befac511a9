import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateUsers1764000000000 implements MigrationInterface {
  name = 'CreateUsers1764000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE users (
        id serial PRIMARY KEY,
        username varchar(50) NOT NULL,
        email varchar(254) NOT NULL,
        password_hash varchar(100) NOT NULL,
        role varchar(20) NOT NULL DEFAULT 'user',
        blocked boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT users_role_check CHECK (role IN ('super_admin', 'user')),
        CONSTRAINT users_email_lowercase_check CHECK (email = lower(email))
      )`);
    // Emails are stored lower-cased; usernames keep their case but are unique ignoring it,
    // because login matches either case-insensitively.
    await q.query('CREATE UNIQUE INDEX users_email_key ON users (email)');
    await q.query('CREATE UNIQUE INDEX users_username_lower_key ON users (lower(username))');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE users');
  }
}
