import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The audit log (spec 2.19): one row per audited action, immutable once
 * written. A trigger refuses every UPDATE, and every DELETE of a row whose
 * retention has not ended, whoever runs it; TRUNCATE is refused too. Rows
 * keep the actor's id without a foreign key, so they outlive the account.
 */
export class CreateAuditLog1764000000070 implements MigrationInterface {
  name = 'CreateAuditLog1764000000070';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE audit_log (
        id bigserial PRIMARY KEY,
        action varchar(100) NOT NULL,
        actor_user_id integer NULL,
        tenant varchar(100) NULL,
        correlation_id varchar(128) NULL,
        details jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        retain_until timestamptz NOT NULL
      )`);
    await q.query('CREATE INDEX audit_log_created_idx ON audit_log (created_at DESC, id DESC)');
    await q.query('CREATE INDEX audit_log_actor_idx ON audit_log (actor_user_id, created_at DESC)');
    await q.query('CREATE INDEX audit_log_action_idx ON audit_log (action, created_at DESC)');
    await q.query('CREATE INDEX audit_log_correlation_idx ON audit_log (correlation_id)');
    await q.query('CREATE INDEX audit_log_retain_idx ON audit_log (retain_until)');
    await q.query(`
      CREATE FUNCTION audit_log_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'DELETE' AND OLD.retain_until <= now() THEN
          RETURN OLD;
        END IF;
        RAISE EXCEPTION 'audit_log rows are immutable (% refused)', TG_OP USING ERRCODE = 'restrict_violation';
      END $$`);
    await q.query('CREATE TRIGGER audit_log_immutable BEFORE UPDATE OR DELETE ON audit_log FOR EACH ROW EXECUTE FUNCTION audit_log_immutable()');
    await q.query('CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log FOR EACH STATEMENT EXECUTE FUNCTION audit_log_immutable()');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE audit_log');
    await q.query('DROP FUNCTION audit_log_immutable()');
  }
}
