import request from 'supertest';
import type express from 'express';
import { buildTestApp, openTestBed, TestBed } from '../../test-support/test-app';
import { Actor, Actors, createActors } from '../executions/test-support/actors';
import { insertActivity, insertExecution, StepFixture } from './test-support/analytics-fixtures';

/** GET /workflows/{activityId}/analytics against hand-computed figures. */

let bed: TestBed;
let app: express.Express;
let actors: Actors;
let invoices: number;
let shared: number;

interface ActivityAnalytics {
  activity_id: number;
  workflow_name: string;
  total_executions: number;
  last_30_days: {
    executions: number;
    success_rate: number;
    avg_execution_time: number | null;
    total_cost: number;
    step_performance: { step_name: string; runs: number; avg_duration: number | null; success_rate: number; most_common_error: string | null }[];
    failure_analysis: { total_failures: number; by_step: Record<string, number>; by_error_type: Record<string, number> };
  };
}

function get(actor: Actor, activityId: number | string): request.Test {
  return request(app).get(`/api/workflows/${activityId}/analytics`).set('Authorization', actor.auth);
}

async function analytics(actor: Actor, activityId: number): Promise<ActivityAnalytics> {
  const res = await get(actor, activityId);
  expect(res.status).toBe(200);
  return (res.body as { data: ActivityAnalytics }).data;
}

const start: StepFixture = { nodeId: 'start', name: 'Start', status: 'completed', offset: 0, duration: 0 };
const fetchOk = (duration: number): StepFixture => ({ nodeId: 'fetch', name: 'Fetch invoice', status: 'completed', offset: 1, duration });
const fetchFailed = (duration: number, error: string): StepFixture => ({ nodeId: 'fetch', name: 'Fetch invoice', status: 'failed', offset: 1, duration, error, errorType: 'http_error' });
const extract = (status: 'completed' | 'failed', duration: number, error?: string): StepFixture => ({ nodeId: 'extract', name: 'Extract fields', status, offset: 4, duration, error });

beforeAll(async () => {
  bed = await openTestBed();
  app = buildTestApp(bed);
  actors = await createActors(bed.database);
  const db = bed.database;
  const alice = actors.alice.id;
  invoices = await insertActivity(db, alice, 'Invoice flow');
  shared = await insertActivity(db, actors.admin.id, 'Shared flow', 'system');

  const http500 = 'HTTP 500: upstream exploded';
  // e1: the one success.
  await insertExecution(db, {
    activityId: invoices,
    userId: alice,
    status: 'completed',
    created: { ago: '2 days' },
    runSeconds: 12,
    totalCost: 0.25,
    steps: [start, fetchOk(2.5), extract('completed', 8)],
  });
  // e2, e3: the fetch fails with the same error; the skipped extract is not a run.
  await insertExecution(db, {
    activityId: invoices,
    userId: alice,
    status: 'failed',
    created: { ago: '3 days' },
    runSeconds: 6,
    totalCost: 0.1,
    errorType: 'http_error',
    failedNode: 'fetch',
    steps: [fetchFailed(1.5, http500), { nodeId: 'extract', name: 'Extract fields', status: 'skipped' }],
  });
  await insertExecution(db, {
    activityId: invoices,
    userId: alice,
    status: 'failed',
    created: { ago: '4 days' },
    runSeconds: 9,
    totalCost: 0.05,
    errorType: 'http_error',
    failedNode: 'fetch',
    steps: [fetchFailed(3, http500)],
  });
  // e4: the extraction fails.
  await insertExecution(db, {
    activityId: invoices,
    userId: alice,
    status: 'failed',
    created: { ago: '5 days' },
    runSeconds: 20,
    totalCost: 0.4,
    errorType: 'llm_error',
    failedNode: 'extract',
    steps: [fetchOk(1), extract('failed', 15, 'LLM provider returned 429')],
  });
  // e5: no error type, and a failed node without a step record.
  await insertExecution(db, { activityId: invoices, userId: alice, status: 'failed', created: { ago: '6 days' }, runSeconds: 3, failedNode: 'ghost' });
  // e6: still running; its running step is not a run yet.
  await insertExecution(db, {
    activityId: invoices,
    userId: alice,
    status: 'running',
    created: { ago: '1 day' },
    steps: [{ nodeId: 'fetch', name: 'Fetch invoice', status: 'running', offset: 1 }],
  });
  // e7: a different fetch error, less common than the HTTP 500.
  await insertExecution(db, {
    activityId: invoices,
    userId: alice,
    status: 'failed',
    created: { ago: '7 days' },
    runSeconds: 10,
    errorType: 'timeout',
    failedNode: 'fetch',
    steps: [fetchFailed(4, 'connect ETIMEDOUT')],
  });
  // e8: 45 days old: in total_executions only (its steps count nowhere).
  await insertExecution(db, {
    activityId: invoices,
    userId: alice,
    status: 'failed',
    created: { ago: '45 days' },
    runSeconds: 50,
    totalCost: 9,
    errorType: 'timeout',
    failedNode: 'fetch',
    steps: [start, fetchFailed(40, 'Old timeout')],
  });

  // The shared system activity: one run by alice, two by bob.
  await insertExecution(db, { activityId: shared, userId: alice, status: 'completed', created: { ago: '1 day' }, runSeconds: 2 });
  await insertExecution(db, { activityId: shared, userId: actors.bob.id, status: 'completed', created: { ago: '1 day' }, runSeconds: 4 });
  await insertExecution(db, { activityId: shared, userId: actors.bob.id, status: 'failed', created: { ago: '2 days' }, runSeconds: 6, errorType: 'validation_error' });
});

afterAll(async () => {
  await bed?.close();
});

describe('GET /api/workflows/{activityId}/analytics', () => {
  it('counts all-time runs and summarises the last 30 days', async () => {
    const data = await analytics(actors.alice, invoices);
    expect(data).toMatchObject({ activity_id: invoices, workflow_name: 'Invoice flow', total_executions: 8 });
    expect(data.last_30_days).toMatchObject({
      executions: 7,
      success_rate: 16.67, // 1 completed of 6 finished (e6 is running)
      avg_execution_time: 10, // (12 + 6 + 9 + 20 + 3 + 10) / 6
      total_cost: 0.8, // 0.25 + 0.1 + 0.05 + 0.4 (e8's 9 is older)
    });
  });

  it('measures each step over its completed and failed runs, in workflow order, with the most common error', async () => {
    const { step_performance } = (await analytics(actors.alice, invoices)).last_30_days;
    expect(step_performance).toEqual([
      { step_name: 'Start', runs: 1, avg_duration: 0, success_rate: 100, most_common_error: null },
      // 2.5 + 1.5 + 3 + 1 + 4 over 5 runs; 2 of 5 completed; HTTP 500 twice, ETIMEDOUT once.
      { step_name: 'Fetch invoice', runs: 5, avg_duration: 2.4, success_rate: 40, most_common_error: 'HTTP 500: upstream exploded' },
      { step_name: 'Extract fields', runs: 2, avg_duration: 11.5, success_rate: 50, most_common_error: 'LLM provider returned 429' },
    ]);
  });

  it('analyses failures by failed step (its label, else the node id) and by error type (unknown when none)', async () => {
    const { failure_analysis } = (await analytics(actors.alice, invoices)).last_30_days;
    expect(failure_analysis).toEqual({
      total_failures: 5,
      by_step: { 'Extract fields': 1, 'Fetch invoice': 3, ghost: 1 },
      by_error_type: { http_error: 2, llm_error: 1, timeout: 1, unknown: 1 },
    });
  });

  it("counts only the caller's runs of a shared system workflow; a super administrator sees everyone's", async () => {
    expect(await analytics(actors.alice, shared)).toMatchObject({ total_executions: 1, last_30_days: { executions: 1, success_rate: 100, avg_execution_time: 2 } });
    expect(await analytics(actors.bob, shared)).toMatchObject({
      workflow_name: 'Shared flow',
      total_executions: 2,
      last_30_days: { executions: 2, success_rate: 50, avg_execution_time: 5, failure_analysis: { total_failures: 1, by_error_type: { validation_error: 1 }, by_step: { unknown: 1 } } },
    });
    expect(await analytics(actors.admin, shared)).toMatchObject({ total_executions: 3, last_30_days: { executions: 3, success_rate: 66.67 } });
    expect(await analytics(actors.admin, invoices)).toMatchObject({ total_executions: 8, last_30_days: { executions: 7 } });
  });

  it("answers 404 Activity not found for another user's workflow", async () => {
    const res = await get(actors.bob, invoices);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ error: { status: 404, name: 'NotFoundError', message: 'Activity not found' } });
  });

  it('gives an empty summary for a readable workflow without runs', async () => {
    const empty = await insertActivity(bed.database, actors.bob.id, 'Unused flow');
    expect(await analytics(actors.bob, empty)).toEqual({
      activity_id: empty,
      workflow_name: 'Unused flow',
      total_executions: 0,
      last_30_days: {
        executions: 0,
        success_rate: 0,
        avg_execution_time: null,
        total_cost: 0,
        step_performance: [],
        failure_analysis: { total_failures: 0, by_step: {}, by_error_type: {} },
      },
    });
  });

  it.each(['999999', 'abc', '1.5', '0', '-1', '99999999999'])('answers 404 for activity id %s', async (id) => {
    const res = await get(actors.alice, id);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ error: { message: 'Activity not found' } });
  });

  it('is not reached by the fixed analytics paths', async () => {
    const overview = await request(app).get('/api/workflows/metrics/overview').set('Authorization', actors.alice.auth);
    expect(overview.status).toBe(200);
    expect(overview.body).toMatchObject({ data: { period: 'last_7_days' } });
    const errors = await request(app).get('/api/workflows/errors/recent').set('Authorization', actors.alice.auth);
    expect(errors.status).toBe(200);
    expect(errors.body).toMatchObject({ data: { total: 6 } });
  });

  it('needs a token', async () => {
    expect((await request(app).get(`/api/workflows/${invoices}/analytics`)).status).toBe(401);
  });
});
