import { buildTestApp, openTestBed, type TestBed, testConfig } from '../../test-support/test-app';
import { FakeRouter } from '../../test-support/fake-router';
import { type Actors, createActors } from '../executions/test-support/actors';
import { executionEnv, ExecutionApi, ROUTER_KEY } from '../executions/test-support/execution-api';
import { executionRetention } from './retention';

let bed: TestBed;
let router: FakeRouter;
let api: ExecutionApi;
let actors: Actors;

beforeAll(async () => {
  bed = await openTestBed();
  router = await FakeRouter.start(ROUTER_KEY);
  api = new ExecutionApi(buildTestApp(bed, { config: testConfig(executionEnv(router.url)) }));
  actors = await createActors(bed.database);
});

afterAll(async () => {
  await router?.close();
  await bed?.close();
});

async function execution(activityId: number, status: string, finishedDaysAgo: number | null, createdDaysAgo = finishedDaysAgo ?? 0): Promise<number> {
  const id = await api.createExecution(actors.alice, activityId);
  await bed.database.query(
    `UPDATE workflow_executions SET status = $2, created_at = now() - make_interval(days => $4),
            completed_at = CASE WHEN $3::int IS NULL THEN NULL ELSE now() - make_interval(days => $3::int) END
      WHERE id = $1`,
    [id, status, finishedDaysAgo, createdDaysAgo],
  );
  return id;
}

async function step(executionId: number, nodeId: string): Promise<void> {
  await bed.database.query("INSERT INTO workflow_execution_steps (execution_id, node_id, step_name, status) VALUES ($1, $2, $2, 'completed')", [executionId, nodeId]);
}

async function ids(table: string, column = 'id'): Promise<number[]> {
  const rows = (await bed.database.query(`SELECT ${column} AS id FROM ${table} ORDER BY 1`)) as { id: number }[];
  return rows.map((r) => Number(r.id));
}

describe('execution retention (issue #15 item 5)', () => {
  it('removes finished executions, their steps and settled event logs past the retention, in batches, and nothing else', async () => {
    const activity = await api.createActivity(actors.alice);
    const oldCompleted = await execution(activity, 'completed', 40);
    const oldFailed = await execution(activity, 'failed', 31);
    const oldCancelled = await execution(activity, 'cancelled', 45);
    const recent = await execution(activity, 'completed', 5);
    const oldRunning = await execution(activity, 'running', null, 60);
    const oldAwaiting = await execution(activity, 'awaiting_user_input', null, 60);
    const oldQueued = await execution(activity, 'queued', null, 60);
    // A retry made of the old failed one keeps living; its link is cleared by the foreign key.
    const retry = await execution(activity, 'completed', 1);
    await bed.database.query('UPDATE workflow_executions SET retry_of = $2 WHERE id = $1', [retry, oldFailed]);
    await step(oldCompleted, 'a');
    await step(oldCompleted, 'b');
    await step(oldFailed, 'a');
    await step(recent, 'a');

    const [source] = (await bed.database.query("INSERT INTO event_sources (owner_id, name, source_type) VALUES ($1, 'retention', 'webhook') RETURNING id", [actors.alice.id])) as { id: number }[];
    const log = async (eventId: string, status: string, daysAgo: number) =>
      (
        (await bed.database.query(
          "INSERT INTO event_logs (event_id, owner_id, event_source_id, source_type, event_type, status, received_at) VALUES ($1, $2, $3, 'webhook', 'file.created', $4, now() - make_interval(days => $5)) RETURNING id",
          [eventId, actors.alice.id, source!.id, status, daysAgo],
        )) as { id: number }[]
      )[0]!.id;
    const oldProcessed = await log('ret-1', 'processed', 40);
    const oldIgnored = await log('ret-2', 'ignored', 40);
    const oldOpen = await log('ret-3', 'received', 40);
    const recentLog = await log('ret-4', 'processed', 2);

    // Two rows per statement: the three old executions take two statements.
    const removed = await executionRetention(bed.database, 30, { batchSize: 2, maxBatches: 10 }).run();
    expect(removed).toEqual({ executions: 3, steps: 3, eventLogs: 2 });
    expect(await ids('workflow_executions')).toEqual([recent, oldRunning, oldAwaiting, oldQueued, retry].sort((a, b) => a - b));
    expect(await ids('workflow_execution_steps', 'execution_id')).toEqual([recent]);
    const retryRow = (await bed.database.query('SELECT retry_of FROM workflow_executions WHERE id = $1', [retry])) as { retry_of: number | null }[];
    expect(retryRow[0]?.retry_of).toBeNull();
    expect(await ids('event_logs')).toEqual([oldOpen, recentLog].sort((a, b) => a - b));
    for (const gone of [oldProcessed, oldIgnored]) expect(await ids('event_logs')).not.toContain(gone);
    for (const gone of [oldCompleted, oldFailed, oldCancelled]) expect(await ids('workflow_executions')).not.toContain(gone);

    // A second pass finds nothing more.
    expect(await executionRetention(bed.database, 30).run()).toEqual({ executions: 0, steps: 0, eventLogs: 0 });
  });

  it('stops a pass after maxBatches statements and leaves the rest for the next one', async () => {
    const activity = await api.createActivity(actors.alice);
    const old = [await execution(activity, 'completed', 50), await execution(activity, 'completed', 51), await execution(activity, 'failed', 52)];
    const capped = executionRetention(bed.database, 30, { batchSize: 1, maxBatches: 2 });
    expect((await capped.run()).executions).toBe(2);
    expect((await capped.run()).executions).toBe(1);
    const left = (await bed.database.query('SELECT count(*)::int AS n FROM workflow_executions WHERE id = ANY($1::int[])', [old])) as { n: number }[];
    expect(left[0]?.n).toBe(0);
  });
});
