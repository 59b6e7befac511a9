import type { IncomingMessage } from 'node:http';
import request from 'supertest';
import type { NotificationListener } from '@docflow/persistence';
import type { PublicApi } from '../../app';
import { buildTestApi, openTestBed, TEST_JWT_SECRET, TestBed, testConfig } from '../../test-support/test-app';
import { signPollingToken } from './polling-token';
import { FakeRouter } from '../../test-support/fake-router';
import { Actor, createActor, createActors, type Actors } from './test-support/actors';
import { executionEnv, ExecutionApi } from './test-support/execution-api';
import { listenForExecutionChanges } from './test-support/execution-changes';

// The request lane (app.ts, executionLaneRoutes) serves create, execute and status for a token that verified before;
// every case here is sent to what the server runs (listener) and, where it compares, to the express app alone.
let bed: TestBed;
let router: FakeRouter;
let live: PublicApi;
let listener: NotificationListener;
let api: ExecutionApi;
let actors: Actors;

const INPUTS = { inputs: { document_url: 'https://files.example/a.pdf' } };
const later = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** True when the lane would serve this caller (its token verified before). */
function laneKnows(actor: Actor): boolean {
  return live.auth.knownToken({ headers: { authorization: actor.auth } } as IncomingMessage) !== undefined;
}

/** An execution of a fresh activity, created through express. */
async function created(actor: Actor): Promise<number> {
  return api.createExecution(actor, await api.createActivity(actor));
}

beforeAll(async () => {
  bed = await openTestBed();
  router = await FakeRouter.start(executionEnv('').ROUTER_API_KEY!);
  live = buildTestApi(bed, { config: testConfig(executionEnv(router.url)) });
  listener = await listenForExecutionChanges(bed, live);
  api = new ExecutionApi(live.app);
  actors = await createActors(bed.database);
  // A first request verifies each token through passport; from then on the lane serves them.
  for (const actor of [actors.alice, actors.bob]) await request(live.listener).get('/api/workflow-executions/1/status').set('Authorization', actor.auth);
});

afterAll(async () => {
  await listener?.close();
  await router?.close();
  await bed?.close();
});

describe('the request lane of executions', () => {
  it('takes over a token once it verified, not before', async () => {
    const carol = await createActor(bed.database, 'carol');
    expect(laneKnows(carol)).toBe(false);
    const first = await request(live.listener).get('/api/workflow-executions/1/status').set('Authorization', carol.auth);
    expect(first.status).toBe(404);
    expect(laneKnows(carol)).toBe(true);
    expect(laneKnows(actors.alice)).toBe(true);
  });

  it('creates, starts and reads an execution with the answers of the express routes', async () => {
    const activity = await api.createActivity(actors.alice);
    const body = { data: { activity: activity, inputs: { document_url: 'https://files.example/a.pdf' } } };
    const viaLane = await request(live.listener).post('/api/workflow-executions').set('Authorization', actors.alice.auth).set('X-Correlation-Id', 'lane-1').send(body);
    const viaExpress = await request(live.app).post('/api/workflow-executions').set('Authorization', actors.alice.auth).send(body);
    expect(viaLane.status).toBe(201);
    expect(viaLane.headers['x-correlation-id']).toBe('lane-1');
    expect(viaLane.headers['content-type']).toBe(viaExpress.headers['content-type']);
    const id = viaLane.body.data.id as number;
    const other = viaExpress.body.data.id as number;
    const comparable = (data: Record<string, unknown>) => ({ ...data, id: undefined, created_at: undefined, updated_at: undefined });
    expect(comparable(viaLane.body.data)).toEqual(comparable(viaExpress.body.data));

    const started = await request(live.listener).post(`/api/workflow-executions/${id}/execute`).set('Authorization', actors.alice.auth).send({});
    const startedByExpress = await request(live.app).post(`/api/workflow-executions/${other}/execute`).set('Authorization', actors.alice.auth).send({});
    expect(started.status).toBe(200);
    expect(Object.keys(started.body).sort()).toEqual(Object.keys(startedByExpress.body).sort());
    expect(started.body.data ?? started.body).toMatchObject({ status: 'running' });

    const status = await request(live.listener).get(`/api/workflow-executions/${id}/status`).set('Authorization', actors.alice.auth);
    const statusByExpress = await request(live.app).get(`/api/workflow-executions/${id}/status`).set('Authorization', actors.alice.auth);
    expect(status.status).toBe(200);
    expect(status.body).toEqual(statusByExpress.body);
  });

  it('answers a long poll when a result completes the execution, and forgets its waiter', async () => {
    const id = await created(actors.alice);
    await request(live.listener).post(`/api/workflow-executions/${id}/execute`).set('Authorization', actors.alice.auth).send(INPUTS).expect(200);
    const poll = request(live.listener)
      .get(`/api/workflow-executions/${id}/status?wait=20`)
      .set('Authorization', actors.alice.auth)
      .then((res) => res);
    await later(300);
    expect(live.executions.watch.size).toBe(1);
    await api.postResult(id, { job_id: `wf_${id}`, status: 'completed', outputs: { end: { ok: true } } }).expect(200);
    const res = await poll;
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id, status: 'completed', outputs: { end: { ok: true } } });
    expect(live.executions.watch.size).toBe(0);
  });

  it('stops waiting when the client leaves a long poll', async () => {
    const id = await created(actors.alice);
    await request(live.listener).post(`/api/workflow-executions/${id}/execute`).set('Authorization', actors.alice.auth).send(INPUTS).expect(200);
    const poll = request(live.listener).get(`/api/workflow-executions/${id}/status?wait=20`).set('Authorization', actors.alice.auth).timeout(300);
    await expect(poll).rejects.toThrow(/Timeout/);
    await later(100);
    expect(live.executions.watch.size).toBe(0);
  });

  // Each refusal sent to the listener (the lane, for these known tokens) and to the express app: the same answer.
  const refusals: Array<[string, (ids: { alices: number }) => { method: 'get' | 'post'; path: string; actor: keyof Actors; body?: unknown }]> = [
    ["someone else's execution", ({ alices }) => ({ method: 'get', path: `/api/workflow-executions/${alices}/status`, actor: 'bob' })],
    ["starting someone else's execution", ({ alices }) => ({ method: 'post', path: `/api/workflow-executions/${alices}/execute`, actor: 'bob', body: {} })],
    ['an id with a leading zero', ({ alices }) => ({ method: 'get', path: `/api/workflow-executions/0${alices}/status`, actor: 'alice' })],
    ['a wait beyond 30 seconds', ({ alices }) => ({ method: 'get', path: `/api/workflow-executions/${alices}/status?wait=31`, actor: 'alice' })],
    ['a create without an activity', () => ({ method: 'post', path: '/api/workflow-executions', actor: 'alice', body: { data: {} } })],
    ['a create of an unknown activity', () => ({ method: 'post', path: '/api/workflow-executions', actor: 'alice', body: { data: { activity: 987654 } } })],
    ['a start whose body is not an object', ({ alices }) => ({ method: 'post', path: `/api/workflow-executions/${alices}/execute`, actor: 'alice', body: [1] })],
  ];
  it.each(refusals)('refuses %s as express does', async (_what, make) => {
    const alices = await created(actors.alice);
    const { method, path, actor, body } = make({ alices });
    const send = (target: PublicApi['listener'] | PublicApi['app']) => {
      const r = request(target)[method](path).set('Authorization', actors[actor].auth);
      return body === undefined ? r : r.send(body as object);
    };
    const viaExpress = await send(live.app);
    const viaLane = await send(live.listener);
    expect(viaLane.status).toBeGreaterThanOrEqual(400);
    expect({ status: viaLane.status, body: viaLane.body }).toEqual({ status: viaExpress.status, body: viaExpress.body });
  });

  it("refuses a revoked token as requireAuth does, and leaves a webhook's polling token to express", async () => {
    const dave = await createActor(bed.database, 'dave');
    const id = await created(dave);
    await request(live.listener).get(`/api/workflow-executions/${id}/status`).set('Authorization', dave.auth).expect(200);
    expect(laneKnows(dave)).toBe(true);
    await request(live.app).post('/api/auth/logout').set('Authorization', dave.auth).expect(200);
    const viaLane = await request(live.listener).get(`/api/workflow-executions/${id}/status`).set('Authorization', dave.auth);
    const viaExpress = await request(live.app).get(`/api/workflow-executions/${id}/status`).set('Authorization', dave.auth);
    expect(viaLane.status).toBe(401);
    expect(viaLane.body).toEqual(viaExpress.body);
    // A polling token (what a webhook trigger answers) is not an access token: express's readAuth verifies it.
    const token = signPollingToken({ executionId: id, userId: dave.id }, TEST_JWT_SECRET);
    const polling = await request(live.listener).get(`/api/workflow-executions/${id}/status`).set('Authorization', `Bearer ${token}`);
    expect(polling.status).toBe(200);
    expect(polling.body.data).toMatchObject({ id, status: 'queued' });
  });
});
