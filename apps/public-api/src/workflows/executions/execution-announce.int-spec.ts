import { Client, Pool } from 'pg';
import request from 'supertest';
import type { ResultMessage } from '@docflow/contracts';
import { type NotificationListener, pgPool } from '@docflow/persistence';
import type { PublicApi } from '../../app';
import { buildTestApi, openTestBed, type TestBed, testConfig } from '../../test-support/test-app';
import { FakeRouter } from '../../test-support/fake-router';
import { type Actors, createActors } from './test-support/actors';
import { executionEnv, ExecutionApi } from './test-support/execution-api';
import { listenForExecutionChanges } from './test-support/execution-changes';
import { EXECUTION_CHANGED_CHANNEL, terminalRowOf } from './execution-watch';

// docs/decisions.md, "Execution changes announced after their commit": starts and batches of results sent in one
// message NOTIFY after their commit, in a statement of their own, instead of through the trigger; every other
// writer still notifies through the trigger.

let bed: TestBed;
let router: FakeRouter;
/** The process with waiters: it LISTENs, as server.ts does. */
let live: PublicApi;
/** Another process, which writes. */
let other: PublicApi;
let listener: NotificationListener;
let actors: Actors;
/** A connection of its own that LISTENs and, on each notification, reads the execution's status on another. */
let ear: Client;
let reader: Pool;
let heard: { payload: string; status: string | undefined }[] = [];
let onHeard: (() => void) | undefined;
let hearing: Promise<void> = Promise.resolve();

const statusOf = async (c: Pool, id: number) => (await c.query<{ status: string }>('SELECT status FROM workflow_executions WHERE id = $1', [id])).rows[0]?.status;

/** Everything heard on the channel up to a marker notified now (notifications arrive in commit order), the marker left out. */
async function heardUntilMarker(): Promise<{ payload: string; status: string | undefined }[]> {
  const marker = `marker ${Math.random()}`;
  await reader.query('SELECT pg_notify($1, $2)', [EXECUTION_CHANGED_CHANNEL, marker]);
  while (!heard.some((h) => h.payload === marker)) await new Promise<void>((resolve) => (onHeard = resolve));
  const out = heard.slice(
    0,
    heard.findIndex((h) => h.payload === marker),
  );
  heard = [];
  return out;
}

/** What was heard of execution `id`. */
const of = (list: { payload: string; status: string | undefined }[], id: number) => list.filter((h) => h.payload === String(id) || h.payload.startsWith(`${id} `));

beforeAll(async () => {
  bed = await openTestBed();
  router = await FakeRouter.start(executionEnv('').ROUTER_API_KEY!);
  const config = testConfig(executionEnv(router.url));
  live = buildTestApi(bed, { config });
  other = buildTestApi(bed, { config });
  listener = await listenForExecutionChanges(bed, live);
  actors = await createActors(bed.database);
  reader = new Pool({ connectionString: bed.db.url, max: 2 });
  ear = new Client({ connectionString: bed.db.url });
  await ear.connect();
  ear.on('notification', (n) => {
    const payload = n.payload ?? '';
    const id = Number(payload.split(' ')[0]);
    // Read at once, on another connection (an announcement must never arrive before its change is visible),
    // one after the other so that `heard` keeps the order of arrival.
    hearing = hearing.then(async () => {
      heard.push({ payload, status: Number.isSafeInteger(id) ? await statusOf(reader, id) : undefined });
      onHeard?.();
    });
  });
  await ear.query(`LISTEN ${EXECUTION_CHANGED_CHANNEL}`);
});

afterAll(async () => {
  await ear?.end();
  await reader?.end();
  await listener?.close();
  await router?.close();
  await bed?.close();
});

/** An execution of alice's, started through `other`, with its start's announcement heard already. */
async function started(): Promise<number> {
  const id = await new ExecutionApi(other.app).started(actors.alice);
  await other.executions.repo.announced();
  await heardUntilMarker();
  return id;
}

describe('execution changes announced after their commit', () => {
  it('wakes a waiter in another process when a start commits, announced once, after the change is visible', async () => {
    const api = new ExecutionApi(other.app);
    const id = await api.createExecution(actors.alice, await api.createActivity(actors.alice));
    await heardUntilMarker();
    // A waiter of the listening process; the start goes through the other one. Only the announcement can wake it
    // before its 60 s (the test's own timeout is 30 s).
    const woken = live.executions.watch.changed(id, 60_000);
    const pool = pgPool(bed.database);
    const query = pool.query.bind(pool) as unknown as (...args: unknown[]) => Promise<unknown>;
    const names: string[] = [];
    const spy = jest.spyOn(pool, 'query').mockImplementation(((...args: unknown[]) => {
      const first = args[0] as { name?: string } | string;
      if (typeof first === 'object') names.push(first.name ?? '');
      return query(...args);
    }) as never);
    try {
      expect((await api.execute(actors.alice, id)).status).toBe(200);
      expect(await woken).toBeUndefined();
    } finally {
      spy.mockRestore();
    }
    // By the start's own announcement, not the trigger.
    expect(names).toContain('wfx_announce');
    await other.executions.repo.announced();
    expect(of(await heardUntilMarker(), id)).toEqual([{ payload: String(id), status: 'running' }]);
  });

  it('answers a long poll in another process when a batch of results commits in one message, each change announced once with its terminal columns', async () => {
    const [a, b] = [await started(), await started()];
    const polls = [a, b].map((id) =>
      request(live.app)
        .get(`/api/workflow-executions/${id}/status?wait=25`)
        .set('Authorization', actors.alice.auth)
        .then((res) => res),
    );
    while (live.executions.watch.size < 2) await new Promise((r) => setTimeout(r, 20));
    const batch: ResultMessage[] = [
      { job_id: `wf_${a}`, execution_id: a, status: 'completed', sequence: 1, outputs: { end: { n: 1 } } },
      { job_id: `wf_${b}`, execution_id: b, status: 'failed', sequence: 1, error: 'boom', error_type: 'node_error', failed_node: 'n1' },
    ];
    const reports = await other.executions.results.applyAtOnce(batch);
    expect(reports?.map((report) => report())).toEqual([
      { outcome: 'applied', executionId: a, status: 'completed' },
      { outcome: 'applied', executionId: b, status: 'failed' },
    ]);
    const [ra, rb] = await Promise.all(polls);
    expect(ra!.body.data).toMatchObject({ id: a, status: 'completed', outputs: { end: { n: 1 } } });
    expect(rb!.body.data).toMatchObject({ id: b, status: 'failed', error: 'boom' });
    await other.executions.repo.announced();
    const list = await heardUntilMarker();
    // Once each (the trigger stayed silent), read back committed, with the payload the trigger would have sent.
    expect(of(list, a).map((h) => h.status)).toEqual(['completed']);
    expect(of(list, b).map((h) => h.status)).toEqual(['failed']);
    for (const id of [a, b]) {
      const { payload } = of(list, id)[0]!;
      const built = (await reader.query<{ p: string }>('SELECT docflow_execution_change_payload(e) AS p FROM workflow_executions e WHERE id = $1', [id])).rows[0]!.p;
      expect(payload).toBe(built);
      expect(terminalRowOf(id, payload.slice(payload.indexOf(' ') + 1))).toEqual({ ...(await live.executions.repo.findStatus(id)), correlationTokenSealed: null });
    }
  });

  it('wakes long polls of the process that applied terminal results at their commit, before the announcement comes back', async () => {
    const [a, b] = [await started(), await started()];
    // The writing process listens to nothing here: its watch is made live as a listener that never delivers would
    // make it, so only the wake at the commit can answer these waiters before their 60 s.
    other.executions.watch.setLive(true);
    try {
      const woken = [a, b].map((id) => other.executions.watch.changed(id, 60_000));
      const reports = await other.executions.results.applyAtOnce([
        { job_id: `wf_${a}`, execution_id: a, status: 'completed', sequence: 1, outputs: { end: { n: 2 } } },
        { job_id: `wf_${b}`, execution_id: b, status: 'failed', sequence: 1, error: 'boom', error_type: 'node_error', failed_node: 'n1' },
      ]);
      expect(reports?.map((report) => report())).toEqual([
        { outcome: 'applied', executionId: a, status: 'completed' },
        { outcome: 'applied', executionId: b, status: 'failed' },
      ]);
      expect(await woken[0]).toEqual({ ...(await other.executions.repo.findStatus(a)), correlationTokenSealed: null });
      expect(await woken[1]).toEqual({ ...(await other.executions.repo.findStatus(b)), correlationTokenSealed: null });
    } finally {
      other.executions.watch.setLive(false);
    }
    await other.executions.repo.announced();
    const list = await heardUntilMarker();
    expect(of(list, a).map((h) => h.status)).toEqual(['completed']);
    expect(of(list, b).map((h) => h.status)).toEqual(['failed']);
  });

  it('announces nothing of a batch that rolls back', async () => {
    const [a, b] = [await started(), await started()];
    await expect(
      other.executions.results.applyAtOnce([
        { job_id: `wf_${a}`, execution_id: a, status: 'completed', sequence: 1, outputs: { fine: true } },
        // PostgreSQL refuses NUL in jsonb text: the message's one transaction rolls back.
        { job_id: `wf_${b}`, execution_id: b, status: 'completed', sequence: 1, outputs: { bad: 'a\u0000b' } },
      ]),
    ).rejects.toThrow();
    await other.executions.repo.announced();
    expect(await heardUntilMarker()).toEqual([]);
    expect([await statusOf(reader, a), await statusOf(reader, b)]).toEqual(['running', 'running']);
  });

  it('still notifies through the trigger for every other writer, and the setting ends with its transaction', async () => {
    const id = await started();
    // One result alone is one statement with the trigger.
    const posted = await new ExecutionApi(other.app).postResult(id, { job_id: `wf_${id}`, status: 'processing', sequence: 1, task_states: { n1: { status: 'running' } } });
    expect(posted.body).toMatchObject({ data: { applied: true } });
    expect(of(await heardUntilMarker(), id)).toEqual([{ payload: String(id), status: 'running' }]);
    // A transaction that set the caller's announcement is silent; the next one on the same connection is not.
    const c = new Client({ connectionString: bed.db.url });
    await c.connect();
    try {
      await c.query(`SELECT set_config('docflow.announce', 'caller', true); UPDATE workflow_executions SET task_states = '{"n1":{"status":"x"}}' WHERE id = ${id}`);
      await c.query(`UPDATE workflow_executions SET task_states = '{"n1":{"status":"y"}}' WHERE id = ${id}`);
    } finally {
      await c.end();
    }
    expect(of(await heardUntilMarker(), id)).toEqual([{ payload: String(id), status: 'running' }]);
    // A cancel: the trigger's payload carries the terminal columns.
    expect((await request(other.app).post(`/api/workflow-executions/${id}/cancel`).set('Authorization', actors.alice.auth)).status).toBe(200);
    const cancelled = of(await heardUntilMarker(), id);
    expect(cancelled.map((h) => h.status)).toEqual(['cancelled']);
    expect(terminalRowOf(id, cancelled[0]!.payload.slice(String(id).length + 1))).toMatchObject({ id, status: 'cancelled' });
  });
});
