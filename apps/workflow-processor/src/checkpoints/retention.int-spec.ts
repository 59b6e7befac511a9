import { closeDatabase, openDatabase } from '@docflow/persistence';
import { silentLogger } from '@docflow/service-kit';
import { createTestDatabase, type TestDatabase } from '@docflow/testing';
import { workflowProcessorDatabaseOptions } from '../data-source';
import { WakeupsRepository } from '../parking/wakeups.repository';
import { NodeRunsRepository } from './node-runs.repository';
import { pruneProcessorTables } from './retention';

/** Issue #15 item 5: the processor prunes its checkpoints and wake-up rows past EXECUTION_RETENTION_DAYS. */
describe('workflow processor retention (PostgreSQL)', () => {
  let db: TestDatabase;
  let ds: Awaited<ReturnType<typeof openDatabase>>;

  beforeAll(async () => {
    db = await createTestDatabase('wfp_retention');
    ds = await openDatabase(workflowProcessorDatabaseOptions(db.url, silentLogger));
  });

  afterAll(async () => {
    if (ds) await closeDatabase(ds);
    await db?.drop();
  });

  const nodeRun = (key: string, node: string, status: string, daysAgo: number) =>
    ds.query(
      `INSERT INTO workflow_node_runs (execution_key, node_id, job_id, task_type, status, started_at, updated_at)
       VALUES ($1, $2, 'job', 'rest_api_task', $3, now(), now() - make_interval(days => $4))`,
      [key, node, status, daysAgo],
    );
  const wakeup = (key: string, wakeAt: string | null, daysAgo: number) =>
    ds.query(
      `INSERT INTO workflow_wakeups (execution_key, job_id, job, parked, wake_at, updated_at)
       VALUES ($1, 'job', '{}'::jsonb, '[]'::jsonb, $2::timestamptz, now() - make_interval(days => $3))`,
      [key, wakeAt, daysAgo],
    );

  it('deletes old checkpoints except those of a run still awaiting input, and woken wake-ups left behind', async () => {
    await nodeRun('execution:1', 'a', 'completed', 40);
    await nodeRun('execution:1', 'b', 'failed', 40);
    await nodeRun('execution:2', 'a', 'completed', 40);
    await nodeRun('execution:2', 'ask', 'awaiting_input', 40);
    await nodeRun('execution:3', 'a', 'completed', 2);
    await wakeup('execution:4', null, 40);
    await wakeup('execution:5', new Date(Date.now() + 60_000).toISOString(), 40);
    await wakeup('execution:6', null, 1);

    const removed = await pruneProcessorTables({ nodeRuns: new NodeRunsRepository(ds), wakeups: new WakeupsRepository(ds), days: 30, batches: { batchSize: 1, maxBatches: 10 } });
    expect(removed).toEqual({ nodeRuns: 2, wakeups: 1 });
    const runs = (await ds.query("SELECT execution_key || '/' || node_id AS k FROM workflow_node_runs ORDER BY 1")) as { k: string }[];
    expect(runs.map((r) => r.k)).toEqual(['execution:2/a', 'execution:2/ask', 'execution:3/a']);
    const wakes = (await ds.query('SELECT execution_key FROM workflow_wakeups ORDER BY 1')) as { execution_key: string }[];
    expect(wakes.map((r) => r.execution_key)).toEqual(['execution:5', 'execution:6']);
  });
});
