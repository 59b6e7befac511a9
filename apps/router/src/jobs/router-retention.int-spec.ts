import { closeDatabase, openDatabase, pruneInBatches } from '@docflow/persistence';
import { silentLogger } from '@docflow/service-kit';
import { createTestDatabase, type TestDatabase } from '@docflow/testing';
import { routerDatabaseOptions } from '../data-source';
import { RouterJobsRepository } from './router-jobs.repository';

/** Issue #15 item 5: the router prunes its own jobs past EXECUTION_RETENTION_DAYS, in batches. */
describe('router job retention (PostgreSQL)', () => {
  let db: TestDatabase;
  let ds: Awaited<ReturnType<typeof openDatabase>>;

  beforeAll(async () => {
    db = await createTestDatabase('router_retention');
    ds = await openDatabase(routerDatabaseOptions(db.url, silentLogger));
  });

  afterAll(async () => {
    if (ds) await closeDatabase(ds);
    await db?.drop();
  });

  it('deletes jobs untouched for longer than the retention, whatever their status, and keeps the others', async () => {
    const jobs = new RouterJobsRepository(ds);
    const insert = (id: string, status: string, daysAgo: number) =>
      ds.query("INSERT INTO router_jobs (job_id, job_type, queue, status, updated_at) VALUES ($1, 'task_based_workflow', 'workflow_queue', $2, now() - make_interval(days => $3))", [
        id,
        status,
        daysAgo,
      ]);
    await insert('wf_1', 'completed', 40);
    await insert('wf_2', 'failed', 35);
    await insert('wf_3', 'queued', 90);
    await insert('wf_4', 'completed', 3);
    await insert('wf_5', 'processing', 0);

    expect(await pruneInBatches((n) => jobs.pruneBatch(30, n), { batchSize: 2, maxBatches: 10 })).toBe(3);
    const left = (await ds.query('SELECT job_id FROM router_jobs ORDER BY job_id')) as { job_id: string }[];
    expect(left.map((r) => r.job_id)).toEqual(['wf_4', 'wf_5']);
    expect(await jobs.pruneBatch(30, 1000)).toBe(0);
  });
});
