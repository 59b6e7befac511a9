import request from 'supertest';
import type { ResultMessage } from '@docflow/contracts';
import { pgPool, type NotificationListener } from '@docflow/persistence';
import type { PublicApi } from '../../app';
import { buildTestApi, openTestBed, TestBed, testConfig } from '../../test-support/test-app';
import { FakeRouter } from '../../test-support/fake-router';
import { Actors, createActors } from './test-support/actors';
import { executionEnv, ExecutionApi } from './test-support/execution-api';
import { WorkflowExecutionsRepository } from './workflow-executions.repository';
import { listenForExecutionChanges } from './test-support/execution-changes';

let bed: TestBed;
let router: FakeRouter;
let live: PublicApi;
let unlistened: PublicApi;
let listener: NotificationListener;
let api: ExecutionApi;
let actors: Actors;

const at = '2030-01-01T00:00:00.000Z';
const later = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Collects a whole text/event-stream response (it ends after the terminal status). */
function sse(raw: unknown, done: (err: Error | null, body: string) => void): void {
  const res = raw as NodeJS.ReadableStream;
  let body = '';
  res.setEncoding('utf8');
  res.on('data', (chunk: string) => (body += chunk));
  res.on('end', () => done(null, body));
}

function frames(body: string): Array<{ event: string; data: Record<string, unknown> }> {
  return body
    .split('\n\n')
    .filter((f) => f.includes('event: '))
    .map((f) => ({ event: /event: (.*)/.exec(f)![1]!, data: JSON.parse(/data: (.*)/.exec(f)![1]!) as Record<string, unknown> }));
}

beforeAll(async () => {
  bed = await openTestBed();
  router = await FakeRouter.start(executionEnv('').ROUTER_API_KEY!);
  const config = testConfig(executionEnv(router.url));
  live = buildTestApi(bed, { config });
  unlistened = buildTestApi(bed, { config });
  listener = await listenForExecutionChanges(bed, live);
  api = new ExecutionApi(live.app);
  actors = await createActors(bed.database);
});

afterAll(async () => {
  await listener?.close();
  await router?.close();
  await bed?.close();
});

describe('GET /api/workflow-executions/{id}/status?wait=', () => {
  it('refuses a wait that is not a number of seconds from 0 to 30', async () => {
    const id = await api.started(actors.alice);
    for (const wait of ['abc', '-1', '31', '1e3']) {
      const res = await request(live.app).get(`/api/workflow-executions/${id}/status?wait=${wait}`).set('Authorization', actors.alice.auth);
      expect(res.status).toBe(400);
      expect(res.body.error.details.errors).toEqual(['wait must be a number of seconds from 0 to 30']);
    }
  });

  it('answers as soon as a result committed by another process completes the execution', async () => {
    const id = await api.started(actors.alice);
    const t0 = Date.now();
    const poll = request(live.app).get(`/api/workflow-executions/${id}/status?wait=20`).set('Authorization', actors.alice.auth);
    const answered = poll.then((res) => ({ res, ms: Date.now() - t0 }));
    await later(300);
    // Posted through the other app: only the NOTIFY can wake the first one's waiter.
    const posted = await new ExecutionApi(unlistened.app).postResult(id, { job_id: `wf_${id}`, status: 'completed', outputs: { end: { ok: true } } });
    expect(posted.body).toMatchObject({ data: { applied: true, status: 'completed' } });
    const { res, ms } = await answered;
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id, status: 'completed', outputs: { end: { ok: true } } });
    expect(ms).toBeLessThan(10_000);
    expect(live.executions.watch.size).toBe(0);
  });

  /** A long poll of alice's started execution, answered by `result` posted through the other app; the poll's answer and its reads of the record. */
  async function pollAnsweredBy(result: Partial<ResultMessage>): Promise<{ id: number; data: Record<string, unknown>; reads: number }> {
    const id = await api.started(actors.alice);
    const reads = jest.spyOn(WorkflowExecutionsRepository.prototype, 'findStatus');
    try {
      const poll = request(live.app)
        .get(`/api/workflow-executions/${id}/status?wait=20`)
        .set('Authorization', actors.alice.auth)
        .then((res) => res);
      await later(300);
      await new ExecutionApi(unlistened.app).postResult(id, { job_id: `wf_${id}`, ...result });
      const res = await poll;
      return { id, data: res.body.data as Record<string, unknown>, reads: reads.mock.calls.filter(([read]) => read === id).length };
    } finally {
      reads.mockRestore();
    }
  }

  it.each([
    ['completed', { status: 'completed', outputs: { end: { ok: true } }, task_states: { end: { status: 'completed', task_type: 'custom_task', started_at: at, completed_at: at } } }],
    ['failed', { status: 'failed', error: 'boom', error_type: 'node_error', failed_node: 'end' }],
  ] as [string, Partial<ResultMessage>][])('answers a change to %s from its notification, without reading again, exactly as the status route reads it', async (_, result) => {
    const { id, data, reads } = await pollAnsweredBy(result);
    // No read: the owner's poll of an execution this process started waits at once, and the terminal columns came with the NOTIFY.
    expect(reads).toBe(0);
    expect(data).toEqual((await api.status(actors.alice, id)).body.data);
    expect(data['status']).toBe(result.status);
  });

  it('reads a terminal record too large for a notification (pg_notify takes under 8000 bytes)', async () => {
    const big = 'x'.repeat(9000);
    const { data, reads } = await pollAnsweredBy({ status: 'completed', outputs: { end: { big } } });
    expect(data).toMatchObject({ status: 'completed', outputs: { end: { big } } });
    // The bare notification is the second heard since the start: read.
    expect(reads).toBe(1);
  });

  it('answers with the current state when the wait runs out', async () => {
    const id = await api.started(actors.alice);
    const t0 = Date.now();
    const res = await request(live.app).get(`/api/workflow-executions/${id}/status?wait=1`).set('Authorization', actors.alice.auth);
    expect(res.status).toBe(200);
    expect(res.body.data.status).toBe('running');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(950);
    expect(live.executions.watch.size).toBe(0);
  });

  it('answers at once for an execution that waits for its user, and to others with 404', async () => {
    const id = await api.started(actors.alice);
    await api.postResult(id, { job_id: `wf_${id}`, status: 'awaiting_user_input', awaiting_node: 'end', awaiting_input_schema: { type: 'object' } } as never);
    const res = await request(live.app).get(`/api/workflow-executions/${id}/status?wait=30`).set('Authorization', actors.alice.auth);
    expect(res.body.data.status).toBe('awaiting_user_input');
    const other = await request(live.app).get(`/api/workflow-executions/${id}/status?wait=30`).set('Authorization', actors.bob.auth);
    expect(other.status).toBe(404);
  });

  /** The poll's answer, how long it took and its reads of the record. */
  async function timedPoll(app: PublicApi, id: number, auth: string, wait = 20): Promise<{ data: Record<string, unknown>; ms: number; reads: number }> {
    const reads = jest.spyOn(WorkflowExecutionsRepository.prototype, 'findStatus');
    try {
      const t0 = Date.now();
      const res = await request(app.app).get(`/api/workflow-executions/${id}/status?wait=${wait}`).set('Authorization', auth);
      expect(res.status).toBe(200);
      return { data: res.body.data as Record<string, unknown>, ms: Date.now() - t0, reads: reads.mock.calls.filter(([read]) => read === id).length };
    } finally {
      reads.mockRestore();
    }
  }

  const heard = async (id: number) => {
    for (let i = 0; i < 200 && !('terminal' in (live.executions.watch.startedHere(id, actors.alice.id) ?? {})); i += 1) await later(10);
  };

  it('answers at once, without a read, a terminal state committed by another process before the poll began', async () => {
    const id = await api.started(actors.alice);
    await new ExecutionApi(unlistened.app).postResult(id, { job_id: `wf_${id}`, status: 'completed', outputs: { end: { ok: 1 } } });
    await heard(id);
    const { data, ms, reads } = await timedPoll(live, id, actors.alice.auth);
    expect(reads).toBe(0);
    expect(ms).toBeLessThan(500);
    expect(data).toEqual((await api.status(actors.alice, id)).body.data);
    expect(data['status']).toBe('completed');
  });

  it('answers at once a terminal state committed just before the poll, whether or not its notification was heard yet', async () => {
    for (const status of ['completed', 'failed'] as const) {
      const id = await api.started(actors.alice);
      await new ExecutionApi(unlistened.app).postResult(id, { job_id: `wf_${id}`, status, ...(status === 'failed' ? { error: 'boom', failed_node: 'end' } : { outputs: {} }) });
      const { data, ms } = await timedPoll(live, id, actors.alice.auth);
      expect(data['status']).toBe(status);
      expect(ms).toBeLessThan(500);
    }
  });

  it('answers a cancel committed before the poll at once', async () => {
    const id = await api.started(actors.alice);
    expect((await request(live.app).post(`/api/workflow-executions/${id}/cancel`).set('Authorization', actors.alice.auth)).status).toBe(200);
    const { data, ms } = await timedPoll(live, id, actors.alice.auth);
    expect(data['status']).toBe('cancelled');
    expect(ms).toBeLessThan(500);
  });

  it('reads within a second a terminal state whose announcement never came (its announcer died between commit and NOTIFY)', async () => {
    const id = await api.started(actors.alice);
    await later(100); // the start's own announcement heard
    // As a results batch leaves it when its process is killed after the commit: the trigger is silent, nobody announces.
    await pgPool(bed.database).query(
      `SELECT set_config('docflow.announce', 'caller', true); UPDATE workflow_executions SET status = 'completed', completed_at = now(), outputs = '{}' WHERE id = ${id}`,
    );
    const { data, ms, reads } = await timedPoll(live, id, actors.alice.auth);
    expect(data['status']).toBe('completed');
    expect(reads).toBe(1);
    expect(ms).toBeGreaterThanOrEqual(900);
    expect(ms).toBeLessThan(2500);
  });

  it('reads first, as before, for a caller other than the owner, an execution started elsewhere, or after the listener broke', async () => {
    const byAdmin = await api.started(actors.alice);
    await api.postResult(byAdmin, { job_id: `wf_${byAdmin}`, status: 'completed', outputs: {} });
    expect(await timedPoll(live, byAdmin, actors.admin.auth)).toMatchObject({ reads: 1, data: { status: 'completed' } });

    const elsewhere = await new ExecutionApi(unlistened.app).started(actors.alice);
    const running = await timedPoll(live, elsewhere, actors.alice.auth, 0.3);
    expect(running).toMatchObject({ data: { status: 'running' } });
    expect(running.reads).toBe(2); // before the wait and when it ran out

    const broken = await api.started(actors.alice);
    live.executions.watch.setLive(false);
    live.executions.watch.setLive(true);
    const afterBreak = await timedPoll(live, broken, actors.alice.auth, 0.3);
    expect(afterBreak.reads).toBe(2);
  });

  it('still sees the change in a process without a listener (it re-reads every second)', async () => {
    const id = await api.started(actors.alice);
    const t0 = Date.now();
    // supertest sends on then(): start the poll now, before the result.
    const poll = request(unlistened.app)
      .get(`/api/workflow-executions/${id}/status?wait=20`)
      .set('Authorization', actors.alice.auth)
      .then((res) => res);
    await later(200);
    await api.postResult(id, { job_id: `wf_${id}`, status: 'failed', error: 'boom', failed_node: 'end' });
    const res = await poll;
    expect(res.body.data).toMatchObject({ status: 'failed', error: 'boom' });
    // Woken by its own one-second re-read, not by a notification.
    expect(Date.now() - t0).toBeGreaterThanOrEqual(950);
  });
});

describe('GET /api/workflow-executions/{id}/events', () => {
  it('streams the status and each task state as they change, and ends after the terminal status', async () => {
    const id = await api.started(actors.alice);
    const stream = request(live.app).get(`/api/workflow-executions/${id}/events`).set('Authorization', actors.alice.auth).buffer(true).parse(sse);
    const ended = stream.then((res) => res);
    await later(300);
    await api.postResult(id, {
      job_id: `wf_${id}`,
      status: 'processing',
      task_states: { start: { status: 'completed', task_type: 'custom_task', started_at: at, completed_at: at } },
    } as never);
    await later(300);
    await api.postResult(id, {
      job_id: `wf_${id}`,
      status: 'completed',
      outputs: { end: { ok: true } },
      task_states: {
        start: { status: 'completed', task_type: 'custom_task', started_at: at, completed_at: at },
        end: { status: 'completed', task_type: 'custom_task', started_at: at, completed_at: at },
      },
    } as never);
    const res = await ended;
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
    const got = frames(res.body as string);
    expect(got[0]).toMatchObject({ event: 'status', data: { id, status: 'running' } });
    const tasks = got.filter((f) => f.event === 'task').map((f) => `${String(f.data['node_id'])}:${String((f.data['state'] as { status: string }).status)}`);
    expect(tasks).toEqual(['start:completed', 'end:completed']);
    expect(got.at(-1)).toMatchObject({ event: 'status', data: { status: 'completed', outputs: { end: { ok: true } } } });
    expect(live.executions.watch.size).toBe(0);
  });

  it("answers 404 as JSON, not a stream, for someone else's execution", async () => {
    const id = await api.started(actors.alice);
    const res = await request(live.app).get(`/api/workflow-executions/${id}/events`).set('Authorization', actors.bob.auth);
    expect(res.status).toBe(404);
    expect(res.body.error.status).toBe(404);
  });
});
