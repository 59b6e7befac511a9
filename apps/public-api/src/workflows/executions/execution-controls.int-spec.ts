import request from 'supertest';
import type express from 'express';
import { buildTestApp, openTestBed, TestBed, testConfig } from '../../test-support/test-app';
import { Actors, createActors } from './test-support/actors';
import { ErrorBody, executionEnv, ExecutionApi } from './test-support/execution-api';
import { FakeRouter } from '../../test-support/fake-router';

let bed: TestBed;
let router: FakeRouter;
let app: express.Express;
let api: ExecutionApi;
let actors: Actors;

interface Row {
  status: string;
  error: string | null;
  error_type: string | null;
  retry_of: number | null;
  outputs: Record<string, unknown> | null;
}

async function row(id: number): Promise<Row> {
  const rows = (await bed.database.query('SELECT status, error, error_type, retry_of, outputs FROM workflow_executions WHERE id = $1', [id])) as Row[];
  return rows[0]!;
}

const cancel = (auth: string, id: number) => request(app).post(`/api/workflow-executions/${id}/cancel`).set('Authorization', auth).send({});
const retry = (auth: string, id: number) => request(app).post(`/api/workflow-executions/${id}/retry`).set('Authorization', auth).send({});

/** A started execution whose processor reported: start and fetch completed, `end` failed. */
async function failedAfterFetch(): Promise<number> {
  const id = await api.started(actors.alice);
  const at = '2030-01-01T00:00:00.000Z';
  const res = await api.postResult(id, {
    job_id: `wf_${id}`,
    status: 'failed',
    error: 'HTTP 503: busy',
    error_type: 'http_error',
    failed_node: 'end',
    outputs: { start: { document_url: 'd' }, fetch: { data: { token: 't-1' } } },
    task_states: {
      start: { status: 'completed', task_type: 'custom_task', started_at: at, completed_at: at, result: { document_url: 'd' } },
      fetch: { status: 'completed', task_type: 'rest_api_task', started_at: at, completed_at: at, result: { data: { token: 't-1' } } },
      end: { status: 'failed', task_type: 'custom_task', started_at: at, completed_at: at, error: 'HTTP 503: busy' },
    },
  });
  expect(res.body).toMatchObject({ data: { applied: true, status: 'failed' } });
  return id;
}

beforeAll(async () => {
  bed = await openTestBed();
  router = await FakeRouter.start(executionEnv('').ROUTER_API_KEY!);
  app = buildTestApp(bed, { config: testConfig(executionEnv(router.url)) });
  api = new ExecutionApi(app);
  actors = await createActors(bed.database);
});

afterAll(async () => {
  await router?.close();
  await bed?.close();
});

describe('POST /api/workflow-executions/{id}/cancel', () => {
  it('cancels a queued execution', async () => {
    const id = await api.createExecution(actors.alice, await api.createActivity(actors.alice));
    const res = await cancel(actors.alice.auth, id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ data: { id, status: 'cancelled', previous_status: 'queued' } });
    expect((await row(id)).status).toBe('cancelled');
  });

  it('cancels a running execution; a late result of its job is ignored', async () => {
    const id = await api.started(actors.alice);
    expect((await cancel(actors.alice.auth, id)).body).toMatchObject({ data: { status: 'cancelled', previous_status: 'running' } });
    const late = await api.postResult(id, { job_id: `wf_${id}`, status: 'completed', outputs: { fetch: { late: true } } });
    expect(late.body).toEqual({ data: { id, applied: false, status: 'cancelled' } });
    expect(await row(id)).toMatchObject({ status: 'cancelled', outputs: null });
  });

  it('cancels an execution awaiting input, and its token no longer resumes it', async () => {
    const id = await api.started(actors.alice);
    await api.postResult(id, { job_id: `wf_${id}`, status: 'awaiting_user_input', awaiting_node: 'fetch', awaiting_input_schema: { type: 'object' }, correlation_token: 'tok-1' });
    expect((await cancel(actors.alice.auth, id)).body).toMatchObject({ data: { status: 'cancelled', previous_status: 'awaiting_user_input' } });
    const resumed = await api.resume(actors.alice, id, { correlation_token: 'tok-1', payload: {} });
    expect(resumed.status).toBe(409);
  });

  it('answers 409 in the error body for a finished execution, and 404 to anyone but the owner', async () => {
    const id = await api.started(actors.alice);
    await api.postResult(id, { job_id: `wf_${id}`, status: 'completed', outputs: {} });
    const done = await cancel(actors.alice.auth, id);
    expect(done.status).toBe(409);
    expect((done.body as ErrorBody).error).toMatchObject({ status: 409, name: 'ConflictError', details: { status: 'completed' } });
    expect((await cancel(actors.alice.auth, id)).status).toBe(409);

    const other = await api.started(actors.alice);
    expect((await cancel(actors.bob.auth, other)).status).toBe(404);
    expect((await cancel(actors.admin.auth, other)).status).toBe(404);
    expect((await cancel(actors.alice.auth, 99999999)).status).toBe(404);
    expect((await row(other)).status).toBe('running');
  });
});

describe('POST /api/workflow-executions/{id}/retry', () => {
  it('starts a new execution linked to the failed one, carrying the completed nodes and their outputs', async () => {
    const failedId = await failedAfterFetch();
    const res = await retry(actors.alice.auth, failedId);
    expect(res.status).toBe(201);
    const body = res.body as { execution_id: number; retry_of: number; job_id: string; data: { status: string } };
    expect(body).toMatchObject({ success: true, retry_of: failedId, data: { status: 'running' } });
    const newId = body.execution_id;
    expect(newId).not.toBe(failedId);
    expect(await row(newId)).toMatchObject({ status: 'running', retry_of: failedId, outputs: { start: { document_url: 'd' }, fetch: { data: { token: 't-1' } } } });
    const job = router.job(body.job_id)!;
    const retryOf = job.payload['retry_of'] as { execution_id: number; completed_nodes: Record<string, { output: unknown }> };
    expect(retryOf.execution_id).toBe(failedId);
    expect(Object.keys(retryOf.completed_nodes).sort()).toEqual(['fetch', 'start']);
    expect(retryOf.completed_nodes['fetch']!.output).toEqual({ data: { token: 't-1' } });
    const view = await request(app).get(`/api/workflow-executions/${newId}`).set('Authorization', actors.alice.auth);
    expect((view.body as { data: { retry_of: number } }).data.retry_of).toBe(failedId);
    // The failed execution itself is unchanged.
    expect((await row(failedId)).status).toBe('failed');
  });

  it('retries only failed executions (409) of their owner (404)', async () => {
    const running = await api.started(actors.alice);
    const res = await retry(actors.alice.auth, running);
    expect(res.status).toBe(409);
    expect((res.body as ErrorBody).error).toMatchObject({ name: 'ConflictError', details: { status: 'running' } });
    expect((await retry(actors.bob.auth, await failedAfterFetch())).status).toBe(404);
  });

  it('leaves no queued execution behind when the router refuses the retry: the new record is failed with the reason', async () => {
    const failedId = await failedAfterFetch();
    router.mode = 'broker_down';
    let res: request.Response;
    try {
      res = await retry(actors.alice.auth, failedId);
    } finally {
      router.mode = 'queue';
    }
    expect(res.status).toBe(503);
    const rows = (await bed.database.query('SELECT id, status, error, error_type FROM workflow_executions WHERE retry_of = $1', [failedId])) as (Row & { id: number })[];
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: 'failed', error_type: 'not_started' });
    expect(rows[0]!.error).toMatch(/^Not started: /);
  });
});
