import { closeDatabase, openDatabase, pgPool } from '@docflow/persistence';
import { silentLogger } from '@docflow/service-kit';
import { createTestDatabase, type TestDatabase } from '@docflow/testing';
import { workflowProcessorDatabaseOptions } from '../data-source';
import { ExecutionStatusRepository } from './execution-status.repository';

/** Issue #16: the processor's cancel reads of jobs delivered together go as one statement, each answering as its own read did. */
describe('ExecutionStatusRepository grouped reads (PostgreSQL)', () => {
  let db: TestDatabase;
  let ds: Awaited<ReturnType<typeof openDatabase>>;
  const sent: string[] = [];

  beforeAll(async () => {
    db = await createTestDatabase('wfp_cancel_reads');
    ds = await openDatabase(workflowProcessorDatabaseOptions(db.url, silentLogger));
    // The public API's column types: an int primary key.
    await ds.query('CREATE TABLE workflow_executions (id serial PRIMARY KEY, status text NOT NULL)');
    await ds.query(`INSERT INTO workflow_executions (status) SELECT CASE WHEN n % 3 = 0 THEN 'cancelled' ELSE 'running' END FROM generate_series(1, 60) AS n`);
    const pool = pgPool(ds) as unknown as { query: (...args: unknown[]) => unknown };
    const query = pool.query.bind(pool);
    pool.query = (...args: unknown[]) => {
      const first = args[0] as string | { name?: string };
      sent.push(typeof first === 'string' ? first : (first.name ?? ''));
      return query(...args);
    };
  });

  afterAll(async () => {
    if (ds) await closeDatabase(ds);
    await db?.drop();
  });

  beforeEach(() => sent.splice(0));

  it('answers each of many concurrent reads as a read of its own would, in two statements', async () => {
    const repo = new ExecutionStatusRepository(ds);
    const ids = [...Array.from({ length: 40 }, (_, i) => i + 1), 3, 4, 999];
    const answers = await Promise.all(ids.map((id) => repo.isCancelled(id)));
    expect(answers).toEqual(ids.map((id) => id <= 60 && id % 3 === 0));
    expect(sent).toEqual(['wfp_execution_status', 'wfp_execution_statuses']);
  });

  it('sees a cancel committed before a read was asked for, while another read was in flight', async () => {
    const repo = new ExecutionStatusRepository(ds);
    const first = repo.isCancelled(1);
    await ds.query(`UPDATE workflow_executions SET status = 'cancelled' WHERE id IN (1, 2)`);
    const second = repo.isCancelled(2); // asked after the commit: must see it
    await first; // either answer is right for a read asked before the commit
    await expect(second).resolves.toBe(true);
    await ds.query(`UPDATE workflow_executions SET status = 'running' WHERE id IN (1, 2)`);
  });

  it('fails only the read of an id past the column type, the others of its group answer', async () => {
    const repo = new ExecutionStatusRepository(ds);
    const first = repo.isCancelled(1);
    const grouped = [repo.isCancelled(6), repo.isCancelled(2 ** 40), repo.isCancelled(7)];
    await first;
    const settled = await Promise.allSettled(grouped);
    expect(settled[0]).toEqual({ status: 'fulfilled', value: true });
    expect(settled[1]!.status).toBe('rejected');
    expect(settled[2]).toEqual({ status: 'fulfilled', value: false });
  });

  it('finds a group by primary key, in the custom and in the generic plan, against thousands of rows', async () => {
    await ds.query(`INSERT INTO workflow_executions (status) SELECT 'completed' FROM generate_series(1, 3000)`);
    await ds.query('ANALYZE workflow_executions');
    const plans = await ds.transaction(async (m) => {
      await m.query('PREPARE statuses_plan(int[]) AS SELECT id, status FROM workflow_executions WHERE id = ANY($1)');
      const out: string[] = [];
      for (const mode of ['force_custom_plan', 'force_generic_plan']) {
        await m.query(`SET LOCAL plan_cache_mode = ${mode}`);
        const rows = (await m.query(`EXPLAIN EXECUTE statuses_plan('{5,6,7,8}')`)) as { 'QUERY PLAN': string }[];
        out.push(rows.map((r) => r['QUERY PLAN']).join('\n'));
      }
      await m.query('DEALLOCATE statuses_plan');
      return out;
    });
    for (const plan of plans) {
      expect(plan).toContain('workflow_executions_pkey');
      expect(plan).not.toContain('Seq Scan');
    }
  });

  it('cancels nothing where the public API has no table', async () => {
    await ds.query('ALTER TABLE workflow_executions RENAME TO workflow_executions_away');
    try {
      const repo = new ExecutionStatusRepository(ds);
      await expect(Promise.all([repo.isCancelled(3), repo.isCancelled(6), repo.isCancelled(9)])).resolves.toEqual([false, false, false]);
    } finally {
      await ds.query('ALTER TABLE workflow_executions_away RENAME TO workflow_executions');
    }
  });
});
