import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Execution changes announced after the commit by the hot paths (docs/decisions.md,
 * "Execution changes announced after their commit"). A transaction that queued a
 * NOTIFY takes PostgreSQL's notify lock (one for the whole cluster) before its commit
 * record and holds it through the WAL flush, so every start batch and results batch
 * committed one after the other, each with a flush of its own. Now:
 * - `docflow_execution_change_payload(row)` builds the payload (the id, and for a
 *   terminal execution a space and its status columns as JSON when under 7,900 bytes),
 *   the same text migration 1790000000560's trigger built, for the trigger and for the
 *   statements that announce themselves;
 * - the trigger does not fire in a transaction that set `docflow.announce` to `caller`
 *   (set_config(..., true): until its end only): that caller returns the payloads from
 *   its write statement and NOTIFYs them in a statement of their own after the commit.
 *   Every other writer (cancel, reaper, resume, one result alone, an operator's SQL)
 *   notifies through the trigger as before.
 */
export class ExecutionChangesAnnouncedByCaller1790000000650 implements MigrationInterface {
  name = 'ExecutionChangesAnnouncedByCaller1790000000650';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION docflow_execution_change_payload(e workflow_executions) RETURNS text LANGUAGE plpgsql STABLE AS $$
      DECLARE
        terminal text;
      BEGIN
        IF e.status IN ('completed', 'failed', 'cancelled') THEN
          terminal := json_build_object(
            'id', e.id, 'userId', e.user_id, 'status', e.status, 'taskStates', e.task_states, 'outputs', e.outputs,
            'awaitingNode', e.awaiting_node, 'awaitingInputSchema', e.awaiting_input_schema,
            'awaitingSince', floor(extract(epoch FROM e.awaiting_since) * 1000),
            'startedAt', floor(extract(epoch FROM e.started_at) * 1000),
            'completedAt', floor(extract(epoch FROM e.completed_at) * 1000),
            'error', e.error, 'errorType', e.error_type, 'failedNode', e.failed_node)::text;
          IF octet_length(terminal) < 7900 THEN
            RETURN e.id::text || ' ' || terminal;
          END IF;
        END IF;
        RETURN e.id::text;
      END $$`);
    await q.query(`
      CREATE OR REPLACE FUNCTION docflow_execution_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('docflow_execution_changed', docflow_execution_change_payload(NEW));
        RETURN NULL;
      END $$`);
    // The setting is read in WHEN, so a caller that announces queues no trigger event at all.
    await q.query('DROP TRIGGER workflow_executions_changed ON workflow_executions');
    await q.query(`
      CREATE TRIGGER workflow_executions_changed AFTER UPDATE ON workflow_executions FOR EACH ROW
      WHEN ((OLD.status IS DISTINCT FROM NEW.status OR OLD.task_states IS DISTINCT FROM NEW.task_states)
            AND current_setting('docflow.announce', true) IS DISTINCT FROM 'caller')
      EXECUTE FUNCTION docflow_execution_changed()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TRIGGER workflow_executions_changed ON workflow_executions');
    await q.query(`
      CREATE TRIGGER workflow_executions_changed AFTER UPDATE ON workflow_executions FOR EACH ROW
      WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.task_states IS DISTINCT FROM NEW.task_states)
      EXECUTE FUNCTION docflow_execution_changed()`);
    await q.query(`
      CREATE OR REPLACE FUNCTION docflow_execution_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        payload text := NEW.id::text;
        terminal text;
      BEGIN
        IF NEW.status IN ('completed', 'failed', 'cancelled') THEN
          terminal := json_build_object(
            'id', NEW.id, 'userId', NEW.user_id, 'status', NEW.status, 'taskStates', NEW.task_states, 'outputs', NEW.outputs,
            'awaitingNode', NEW.awaiting_node, 'awaitingInputSchema', NEW.awaiting_input_schema,
            'awaitingSince', floor(extract(epoch FROM NEW.awaiting_since) * 1000),
            'startedAt', floor(extract(epoch FROM NEW.started_at) * 1000),
            'completedAt', floor(extract(epoch FROM NEW.completed_at) * 1000),
            'error', NEW.error, 'errorType', NEW.error_type, 'failedNode', NEW.failed_node)::text;
          IF octet_length(terminal) < 7900 THEN
            payload := payload || ' ' || terminal;
          END IF;
        END IF;
        PERFORM pg_notify('docflow_execution_changed', payload);
        RETURN NULL;
      END $$`);
    await q.query('DROP FUNCTION docflow_execution_change_payload(workflow_executions)');
  }
}
