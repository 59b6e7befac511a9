import type { DataSource } from 'typeorm';
import { GroupCommit, preparedRows, type ItemOutcome } from '@docflow/persistence';
import type { ExecutionControl } from '../engine/workflow-run';

/** PostgreSQL's undefined_table: the public API has not created its tables in this database. */
const UNDEFINED_TABLE = '42P01';

/** The read of one execution, alone (prepared once per pooled connection). */
const STATUS_SQL = 'SELECT status FROM workflow_executions WHERE id = $1';
/** The reads of executions asked for while another read was in flight, as one statement. */
const STATUSES_SQL = 'SELECT id, status FROM workflow_executions WHERE id = ANY($1)';

/** Most executions read by one statement; more wait for the next. */
const MAX_READS = 64;

/**
 * Reads whether the owner cancelled an execution (issue #15): the one column
 * of the public API's `workflow_executions` the processor looks at, read-only,
 * in the database both services share (DATABASE_URL). A database without
 * that table (a processor run on its own) cancels nothing.
 *
 * Reads are grouped (issue #16): a read asked for while none is in flight
 * goes at once, alone, as before; the reads asked for while one is in flight
 * (jobs delivered together) go together as one `id = ANY($1)` statement as
 * soon as it answers. Every read is sent after it was asked for, so each sees
 * every cancel committed before its caller asked, as one read per delivery did.
 */
export class ExecutionStatusRepository implements ExecutionControl {
  private readonly reads = new GroupCommit<number, boolean>((ids) => this.readMany(ids), { maxItems: MAX_READS, lingerMs: 0 });

  constructor(private readonly ds: DataSource) {}

  isCancelled(executionId: number): Promise<boolean> {
    return this.reads.submit(executionId);
  }

  private async readMany(ids: number[]): Promise<ItemOutcome<boolean>[]> {
    if (ids.length === 1) return [await outcomeOf(this.readOne(ids[0] as number))];
    try {
      const rows = await preparedRows<{ id: number | string; status: string }>(this.ds, 'wfp_execution_statuses', STATUSES_SQL, [[...new Set(ids)]]);
      const cancelled = new Set(rows.filter((r) => r.status === 'cancelled').map((r) => Number(r.id)));
      return ids.map((id) => ({ ok: true, value: cancelled.has(id) }));
    } catch (err) {
      if (isUndefinedTable(err)) return ids.map(() => ({ ok: true, value: false }));
      // One id the statement cannot take (past the column's range) must not fail the others: each is read alone, as before.
      return Promise.all(ids.map((id) => outcomeOf(this.readOne(id))));
    }
  }

  private async readOne(id: number): Promise<boolean> {
    try {
      const rows = await preparedRows<{ status: string }>(this.ds, 'wfp_execution_status', STATUS_SQL, [id]);
      return rows[0]?.status === 'cancelled';
    } catch (err) {
      if (isUndefinedTable(err)) return false;
      throw err;
    }
  }
}

const isUndefinedTable = (err: unknown) => (err as { code?: unknown } | null)?.code === UNDEFINED_TABLE;

async function outcomeOf(read: Promise<boolean>): Promise<ItemOutcome<boolean>> {
  try {
    return { ok: true, value: await read };
  } catch (error) {
    return { ok: false, error };
  }
}
