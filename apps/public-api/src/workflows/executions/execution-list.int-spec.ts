import request from 'supertest';
import type express from 'express';
import { buildTestApp, openTestBed, TestBed, testConfig } from '../../test-support/test-app';
import { closedPortUrl } from '../../test-support/fake-router';
import { Actors, createActors } from './test-support/actors';
import { ErrorBody, executionEnv, ExecutionApi } from './test-support/execution-api';
import type { ExecutionListItem } from './execution-list.feature';

let bed: TestBed;
let app: express.Express;
let api: ExecutionApi;
let actors: Actors;
let flowA: number;
let flowB: number;
/** alice's executions, oldest first. */
const mine: number[] = [];
let bobs: number;

interface ListBody {
  data: ExecutionListItem[];
  meta: { pagination: { page: number; pageSize: number; pageCount: number; total: number } };
}

function list(query: string, auth = actors.alice.auth): request.Test {
  return request(app).get(`/api/workflow-executions${query}`).set('Authorization', auth);
}

beforeAll(async () => {
  bed = await openTestBed();
  app = buildTestApp(bed, { config: testConfig(executionEnv(await closedPortUrl())) });
  api = new ExecutionApi(app);
  actors = await createActors(bed.database);
  flowA = await api.createActivity(actors.alice);
  flowB = await api.createActivity(actors.alice);
  for (const activity of [flowA, flowB, flowA, flowA, flowB]) mine.push(await api.createExecution(actors.alice, activity));
  bobs = await api.createExecution(actors.bob, await api.createActivity(actors.bob));
  // Spread creation times so that the default order (newest first) is observable, and settle two of them.
  for (const [i, id] of mine.entries()) {
    await bed.database.query(`UPDATE workflow_executions SET created_at = now() - make_interval(mins => $2::int) WHERE id = $1`, [id, 60 - i]);
  }
  await bed.database.query(
    `UPDATE workflow_executions SET status = 'failed', error = 'boom', failed_node = 'fetch', started_at = now() - interval '3 seconds', completed_at = now() - interval '1 second', total_cost = 0.25 WHERE id = $1`,
    [mine[1]],
  );
  await bed.database.query(`UPDATE workflow_executions SET status = 'completed', started_at = now(), completed_at = now() WHERE id = $1`, [mine[3]]);
});

afterAll(async () => {
  await bed?.close();
});

describe('GET /api/workflow-executions', () => {
  it('lists only the caller’s executions, newest first, with their activity’s name and the pagination meta', async () => {
    const res = await list('');
    expect(res.status).toBe(200);
    const body = res.body as ListBody;
    expect(body.data.map((e) => e.id)).toEqual([...mine].reverse());
    expect(body.data.map((e) => e.id)).not.toContain(bobs);
    expect(body.meta.pagination).toEqual({ page: 1, pageSize: 25, pageCount: 1, total: 5 });
    expect(body.data[0]).toEqual({
      id: mine[4],
      status: 'queued',
      activity: { id: flowB, name: 'Flow' },
      started_at: null,
      completed_at: null,
      duration_seconds: null,
      error: null,
      failed_node: null,
      total_cost: 0,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const failed = body.data.find((e) => e.id === mine[1])!;
    expect(failed).toMatchObject({ status: 'failed', error: 'boom', failed_node: 'fetch', total_cost: 0.25 });
    expect(failed.duration_seconds).toBeCloseTo(2, 1);
    expect(failed).not.toHaveProperty('inputs');
  });

  it('filters by status and by activity, and pages', async () => {
    const settled = (await list('?filters[status][$in][0]=failed&filters[status][$in][1]=completed')).body as ListBody;
    expect(settled.data.map((e) => e.id)).toEqual([mine[3], mine[1]]);
    const ofA = (await list(`?filters[activity][$eq]=${flowA}`)).body as ListBody;
    expect(ofA.data.map((e) => e.id)).toEqual([mine[3], mine[2], mine[0]]);
    expect(ofA.meta.pagination.total).toBe(3);
    const page2 = (await list('?pagination[page]=2&pagination[pageSize]=2')).body as ListBody;
    expect(page2.data.map((e) => e.id)).toEqual([mine[2], mine[1]]);
    expect(page2.meta.pagination).toEqual({ page: 2, pageSize: 2, pageCount: 3, total: 5 });
    const queuedOfB = (await list(`?filters[activity][$eq]=${flowB}&filters[status][$eq]=queued`)).body as ListBody;
    expect(queuedOfB.data.map((e) => e.id)).toEqual([mine[4]]);
  });

  it('shows bob only his own execution, whatever he filters on', async () => {
    const all = (await list('', actors.bob.auth)).body as ListBody;
    expect(all.data.map((e) => e.id)).toEqual([bobs]);
    const probing = (await list(`?filters[activity][$eq]=${flowA}`, actors.bob.auth)).body as ListBody;
    expect(probing.data).toEqual([]);
    expect(probing.meta.pagination.total).toBe(0);
  });

  it('answers 400 in the error body for an unknown status or field, and 401 without a token', async () => {
    const badStatus = await list('?filters[status][$eq]=sleeping');
    expect(badStatus.status).toBe(400);
    expect((badStatus.body as ErrorBody).error.name).toBe('BadRequestError');
    const badField = await list('?filters[inputs][$eq]=1');
    expect(badField.status).toBe(400);
    expect((badField.body as ErrorBody).error.details.errors?.length).toBeGreaterThan(0);
    const anonymous = await request(app).get('/api/workflow-executions');
    expect(anonymous.status).toBe(401);
  });
});
