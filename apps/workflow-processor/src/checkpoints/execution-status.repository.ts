import type { DataSource } from 'typeorm';
import { preparedRows } from '@docflow/persistence';
import type { ExecutionControl } from '../engine/workflow-run';

/** PostgreSQL's undefined_table: the public API has not created its tables in this database. */
const UNDEFINED_TABLE = '42P01';

/**
 * Reads whether the owner cancelled an execution (issue #15): the one column
 * of the public API's `workflow_executions` the processor looks at, read-only,
 * in the database both services share (DATABASE_URL). A database without
 * that table (a processor run on its own) cancels nothing.
 */
export class ExecutionStatusRepository implements ExecutionControl {
  constructor(private readonly ds: DataSource) {}

  async isCancelled(executionId: number): Promise<boolean> {
    try {
      // Read once per delivery: prepared once per pooled connection (no parse and plan per read).
      const rows = await preparedRows<{ status: string }>(this.ds, 'wfp_execution_status', 'SELECT status FROM workflow_executions WHERE id = $1', [executionId]);
      return rows[0]?.status === 'cancelled';
    } catch (err) {
      if ((err as { code?: unknown }).code === UNDEFINED_TABLE) return false;
      throw err;
    }
  }
}
