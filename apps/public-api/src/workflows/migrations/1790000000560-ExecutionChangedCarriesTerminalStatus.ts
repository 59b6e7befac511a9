import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A long poll answered without reading again (docs/decisions.md, "Stages of
 * an execution and the long poll's wake-up"): when an update leaves an
 * execution completed, failed or cancelled, the `docflow_execution_changed`
 * notification carries, after the id and a space, the status columns the
 * status route shows (as JSON; times in epoch milliseconds), so that a
 * waiter answers with them instead of a second read. A terminal execution
 * never changes again, so these are its final values. Other changes, a
 * pause for input (its sealed token stays out of notifications) and a
 * record too large for pg_notify's 8000-byte limit are announced by the id
 * alone, as before. The trigger and its condition are unchanged.
 */
export class ExecutionChangedCarriesTerminalStatus1790000000560 implements MigrationInterface {
  name = 'ExecutionChangedCarriesTerminalStatus1790000000560';

  async up(q: QueryRunner): Promise<void> {
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
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE OR REPLACE FUNCTION docflow_execution_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('docflow_execution_changed', NEW.id::text);
        RETURN NULL;
      END $$`);
  }
}
