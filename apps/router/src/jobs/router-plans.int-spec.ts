import { closeDatabase, openDatabase } from '@docflow/persistence';
import { silentLogger } from '@docflow/service-kit';
import { createTestDatabase, type TestDatabase } from '@docflow/testing';
import { routerDatabaseOptions } from '../data-source';
import { APPLY_RESULTS_SQL, RouterJobsRepository } from './router-jobs.repository';

/** Issue #16: a batch of results finds its jobs by primary key, in the generic plan of the prepared statement too. */
describe('plans of the router’s results statement (PostgreSQL)', () => {
  let db: TestDatabase;
  let ds: Awaited<ReturnType<typeof openDatabase>>;

  beforeAll(async () => {
    db = await createTestDatabase('router_plans');
    ds = await openDatabase(routerDatabaseOptions(db.url, silentLogger));
  });

  afterAll(async () => {
    if (ds) await closeDatabase(ds);
    await db?.drop();
  });

  it('probes router_jobs_pkey instead of reading the table, and still applies the batch', async () => {
    await ds.query("INSERT INTO router_jobs (job_id, job_type, queue, status) SELECT 'wf_' || g, 'task_based_workflow', 'workflow_queue', 'completed' FROM generate_series(1, 3000) g");
    await ds.query(
      "INSERT INTO router_jobs (job_id, job_type, queue, status) VALUES ('wf_a', 'task_based_workflow', 'workflow_queue', 'queued'), ('wf_b', 'task_based_workflow', 'workflow_queue', 'queued')",
    );
    await ds.query('ANALYZE router_jobs');
    const plans: string[] = [];
    await ds.transaction(async (m) => {
      await m.query(`PREPARE router_plan(text[], text[], jsonb, text[]) AS ${APPLY_RESULTS_SQL}`);
      // Custom plans for the first five executions, then the generic plan PostgreSQL keeps for a named statement.
      for (let i = 0; i < 7; i += 1) {
        const plan = (await m.query(`EXPLAIN EXECUTE router_plan(ARRAY['wf_a', 'wf_b'], ARRAY['processing', 'processing'], '[null, null]'::jsonb, ARRAY[NULL, NULL])`)) as {
          'QUERY PLAN': string;
        }[];
        plans.push(plan.map((p) => p['QUERY PLAN']).join('\n'));
      }
      await m.query('DEALLOCATE router_plan');
    });
    for (const plan of plans) {
      expect(plan).toContain('router_jobs_pkey');
      expect(plan).not.toContain('Seq Scan on router_jobs');
    }
    const outcomes = await new RouterJobsRepository(ds).applyResults([
      { jobId: 'wf_a', status: 'completed', result: { ok: true }, error: null },
      { jobId: 'wf_1', status: 'processing', result: null, error: null },
      { jobId: 'wf_missing', status: 'processing', result: null, error: null },
    ]);
    expect(Object.fromEntries(outcomes)).toEqual({
      wf_a: { outcome: 'applied', from: 'queued' },
      wf_1: { outcome: 'ignored', from: 'completed' },
      wf_missing: { outcome: 'unknown' },
    });
  });

  it('stores each result of a batch as sent, in order, with quotes, backslashes and non-ASCII text intact, and no result as NULL', async () => {
    await ds.query(
      "INSERT INTO router_jobs (job_id, job_type, queue, status) VALUES ('wf_r1', 'task_based_workflow', 'workflow_queue', 'queued'), ('wf_r2', 'task_based_workflow', 'workflow_queue', 'queued'), ('wf_r3', 'task_based_workflow', 'workflow_queue', 'queued')",
    );
    const tricky = { outputs: { text: 'say "hi" \\ back\\slash, {braces}, \'single\', ünï €', nested: [1, null, { q: '"' }] }, task_states: {} };
    const outcomes = await new RouterJobsRepository(ds).applyResults([
      { jobId: 'wf_r1', status: 'completed', result: tricky, error: null },
      { jobId: 'wf_r2', status: 'processing', result: null, error: null },
      { jobId: 'wf_r3', status: 'failed', result: { outputs: {} }, error: 'boom "quoted"' },
    ]);
    expect([...outcomes.values()].map((o) => o.outcome)).toEqual(['applied', 'applied', 'applied']);
    const rows = (await ds.query("SELECT job_id, status, result, result IS NULL AS none, error FROM router_jobs WHERE job_id LIKE 'wf_r%' ORDER BY job_id")) as {
      job_id: string;
      status: string;
      result: unknown;
      none: boolean;
      error: string | null;
    }[];
    expect(rows).toEqual([
      { job_id: 'wf_r1', status: 'completed', result: tricky, none: false, error: null },
      { job_id: 'wf_r2', status: 'processing', result: null, none: true, error: null },
      { job_id: 'wf_r3', status: 'failed', result: { outputs: {} }, none: false, error: 'boom "quoted"' },
    ]);
  });
});
