import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Long polls and event streams (issue #16 item 4): a change of an execution's
 * status or task states notifies `docflow_execution_changed` with its id when
 * the transaction commits, whichever process made it (results consumer,
 * reaper, cancel, resume), so every API process can wake its waiters. NOTIFYs
 * with the same payload in one transaction are delivered once.
 */
export class ExecutionStatusNotifications1764000000290 implements MigrationInterface {
  name = 'ExecutionStatusNotifications1764000000290';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION docflow_execution_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('docflow_execution_changed', NEW.id::text);
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER workflow_executions_changed AFTER UPDATE ON workflow_executions FOR EACH ROW
      WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.task_states IS DISTINCT FROM NEW.task_states)
      EXECUTE FUNCTION docflow_execution_changed()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TRIGGER workflow_executions_changed ON workflow_executions');
    await q.query('DROP FUNCTION docflow_execution_changed()');
  }
}
