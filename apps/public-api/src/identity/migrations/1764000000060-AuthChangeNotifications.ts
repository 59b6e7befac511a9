import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every change that can alter what a token grants (a user updated or
 * deleted, a token revoked) notifies `docflow_auth_changed` with the user's
 * id when its transaction commits, whoever made it (an API replica, the CLI,
 * an operator's SQL), so that caches of principals can forget the user.
 */
export class AuthChangeNotifications1764000000060 implements MigrationInterface {
  name = 'AuthChangeNotifications1764000000060';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION docflow_auth_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_TABLE_NAME = 'users' THEN
          PERFORM pg_notify('docflow_auth_changed', OLD.id::text);
        ELSE
          PERFORM pg_notify('docflow_auth_changed', NEW.user_id::text);
        END IF;
        RETURN NULL;
      END $$`);
    await q.query('CREATE TRIGGER users_auth_changed AFTER UPDATE OR DELETE ON users FOR EACH ROW EXECUTE FUNCTION docflow_auth_changed()');
    await q.query('CREATE TRIGGER revoked_tokens_auth_changed AFTER INSERT ON revoked_tokens FOR EACH ROW EXECUTE FUNCTION docflow_auth_changed()');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TRIGGER revoked_tokens_auth_changed ON revoked_tokens');
    await q.query('DROP TRIGGER users_auth_changed ON users');
    await q.query('DROP FUNCTION docflow_auth_changed()');
  }
}
