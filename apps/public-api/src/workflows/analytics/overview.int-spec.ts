import request from 'supertest';
import type express from 'express';
import { buildTestApp, TestBed } from '../../test-support/test-app';
import { Actor, Actors, createActor, createActors } from '../executions/test-support/actors';
import { insertActivity, insertExecution, openTestBedInTimeZone } from './test-support/analytics-fixtures';

/**
 * GET /workflows/metrics/overview against hand-computed figures. The
 * database's sessions run in Pacific/Auckland (UTC+13 in January), so day
 * buckets that were not UTC would come out on other dates.
 */

let bed: TestBed;
let app: express.Express;
let actors: Actors;
let dave: Actor;
let erin: Actor;
let a1: number;
let a2: number;
let shared: number;
let bobFlow: number;
let daveFlow: number;

interface Overview {
  period: string;
  total_executions: number;
  successful: number;
  failed: number;
  awaiting_input: number;
  success_rate: number;
  avg_execution_time_seconds: number | null;
  by_workflow: { activity_id: number; workflow_name: string; executions: number; success_rate: number; avg_time: number | null }[];
  by_day: { date: string; executions: number; success: number }[];
}

async function overview(actor: Actor, query = ''): Promise<Overview> {
  const res = await request(app).get(`/api/workflows/metrics/overview${query}`).set('Authorization', actor.auth);
  expect(res.status).toBe(200);
  return (res.body as { data: Overview }).data;
}

beforeAll(async () => {
  bed = await openTestBedInTimeZone('Pacific/Auckland');
  app = buildTestApp(bed);
  actors = await createActors(bed.database);
  dave = await createActor(bed.database, 'dave');
  erin = await createActor(bed.database, 'erin');
  const db = bed.database;
  const alice = actors.alice.id;
  const bob = actors.bob.id;

  shared = await insertActivity(db, actors.admin.id, 'Shared flow', 'system');
  a1 = await insertActivity(db, alice, 'Invoice flow');
  a2 = await insertActivity(db, alice, 'Reports flow');
  bobFlow = await insertActivity(db, bob, 'Bob flow');
  daveFlow = await insertActivity(db, dave.id, 'Dave flow');

  // alice: 8 executions in the last 7 days (3 of them in the last 24 hours), 3 older ones.
  await insertExecution(db, { activityId: a1, userId: alice, status: 'completed', created: { ago: '1 hour' }, runSeconds: 10 });
  await insertExecution(db, { activityId: a1, userId: alice, status: 'failed', created: { ago: '2 hours' }, runSeconds: 4, errorType: 'timeout' });
  await insertExecution(db, { activityId: a2, userId: alice, status: 'running', created: { ago: '30 minutes' } });
  await insertExecution(db, { activityId: a1, userId: alice, status: 'completed', created: { ago: '3 days' }, runSeconds: 20 });
  await insertExecution(db, { activityId: a2, userId: alice, status: 'awaiting_user_input', created: { ago: '2 days' } });
  await insertExecution(db, { activityId: shared, userId: alice, status: 'completed', created: { ago: '5 days' }, runSeconds: 6 });
  // Cancelled: neither a success nor a failure, and not averaged although it has both timestamps.
  await insertExecution(db, { activityId: a2, userId: alice, status: 'cancelled', created: { ago: '1 day' }, runSeconds: 100 });
  await insertExecution(db, { activityId: a2, userId: alice, status: 'queued', created: { ago: '1 day' }, started: false });
  await insertExecution(db, { activityId: a1, userId: alice, status: 'failed', created: { ago: '20 days' }, runSeconds: 30 });
  await insertExecution(db, { activityId: a2, userId: alice, status: 'completed', created: { ago: '60 days' }, runSeconds: 8 });
  await insertExecution(db, { activityId: a1, userId: alice, status: 'completed', created: { ago: '120 days' }, runSeconds: 2 });

  // bob: one on the shared system activity, one on his own.
  await insertExecution(db, { activityId: shared, userId: bob, status: 'completed', created: { ago: '2 days' }, runSeconds: 3 });
  await insertExecution(db, { activityId: bobFlow, userId: bob, status: 'failed', created: { ago: '1 day' }, runSeconds: 5, errorType: 'llm_error' });

  // dave: fixed dates around UTC midnights.
  const runs: [string, 'completed' | 'failed' | 'queued'][] = [
    ['2025-01-10T23:59:59Z', 'completed'],
    ['2025-01-11T00:00:00Z', 'failed'],
    ['2025-01-11T12:00:00Z', 'completed'],
    ['2025-01-11T23:00:00Z', 'queued'],
    ['2025-01-13T08:00:00Z', 'completed'],
  ];
  for (const [at, status] of runs) {
    await insertExecution(db, { activityId: daveFlow, userId: dave.id, status, created: { at }, started: status !== 'queued', runSeconds: status === 'queued' ? undefined : 1 });
  }
});

afterAll(async () => {
  await bed?.close();
});

describe('GET /api/workflows/metrics/overview', () => {
  it('defaults to the last 7 days: counts, success rate over finished runs, mean time of completed and failed runs', async () => {
    const data = await overview(actors.alice);
    expect(data).toMatchObject({
      period: 'last_7_days',
      total_executions: 8,
      successful: 3,
      failed: 1,
      awaiting_input: 1,
      success_rate: 75, // 3 completed of 4 finished (running, awaiting, cancelled and queued are not finished)
      avg_execution_time_seconds: 10, // (10 + 4 + 20 + 6) / 4
    });
  });

  it.each([
    ['last_24_hours', { total_executions: 3, successful: 1, failed: 1, awaiting_input: 0, success_rate: 50, avg_execution_time_seconds: 7 }],
    ['last_7_days', { total_executions: 8, successful: 3, failed: 1, awaiting_input: 1, success_rate: 75, avg_execution_time_seconds: 10 }],
    ['last_30_days', { total_executions: 9, successful: 3, failed: 2, awaiting_input: 1, success_rate: 60, avg_execution_time_seconds: 14 }],
    ['last_90_days', { total_executions: 10, successful: 4, failed: 2, awaiting_input: 1, success_rate: 66.67, avg_execution_time_seconds: 13 }],
    ['all_time', { total_executions: 11, successful: 5, failed: 2, awaiting_input: 1, success_rate: 71.43, avg_execution_time_seconds: 11.43 }],
    // Any last_<n>_<unit>, since the spec gives last_7_days only as an example.
    ['last_4_days', { total_executions: 7, successful: 2, failed: 1, awaiting_input: 1, success_rate: 66.67, avg_execution_time_seconds: 11.33 }],
    ['last_2_weeks', { total_executions: 8, successful: 3, failed: 1, awaiting_input: 1, success_rate: 75, avg_execution_time_seconds: 10 }],
    ['last_3_months', { total_executions: 10, successful: 4, failed: 2, awaiting_input: 1, success_rate: 66.67, avg_execution_time_seconds: 13 }],
  ])('period %s counts only executions created in it', async (period, expected) => {
    const data = await overview(actors.alice, `?period=${period}`);
    expect(data).toMatchObject({ period, ...expected });
  });

  it("breaks the period down by workflow, most executed first, counting only the caller's runs of a shared workflow", async () => {
    const data = await overview(actors.alice);
    expect(data.by_workflow).toEqual([
      { activity_id: a2, workflow_name: 'Reports flow', executions: 4, success_rate: 0, avg_time: null },
      { activity_id: a1, workflow_name: 'Invoice flow', executions: 3, success_rate: 66.67, avg_time: 11.33 },
      { activity_id: shared, workflow_name: 'Shared flow', executions: 1, success_rate: 100, avg_time: 6 },
    ]);
  });

  it('buckets by UTC date whatever the database session time zone, listing only days with executions', async () => {
    const tz = (await bed.database.query('SHOW timezone')) as { TimeZone: string }[];
    expect(tz[0]?.TimeZone).toBe('Pacific/Auckland');
    const data = await overview(dave, '?period=all_time');
    expect(data.by_day).toEqual([
      { date: '2025-01-10', executions: 1, success: 1 },
      { date: '2025-01-11', executions: 3, success: 1 },
      { date: '2025-01-13', executions: 1, success: 1 },
    ]);
    expect(data).toMatchObject({ total_executions: 5, successful: 3, failed: 1, success_rate: 75, avg_execution_time_seconds: 1 });
    expect((await overview(dave)).by_day).toEqual([]);
  });

  it('gives zeros and empty lists to a caller without executions', async () => {
    expect(await overview(erin, '?period=all_time')).toEqual({
      period: 'all_time',
      total_executions: 0,
      successful: 0,
      failed: 0,
      awaiting_input: 0,
      success_rate: 0,
      avg_execution_time_seconds: null,
      by_workflow: [],
      by_day: [],
    });
  });

  it("shows bob only his own executions, and a super administrator everyone's", async () => {
    const bob = await overview(actors.bob, '?period=all_time');
    expect(bob).toMatchObject({ total_executions: 2, successful: 1, failed: 1, success_rate: 50, avg_execution_time_seconds: 4 });
    expect(bob.by_workflow).toEqual([
      { activity_id: shared, workflow_name: 'Shared flow', executions: 1, success_rate: 100, avg_time: 3 },
      { activity_id: bobFlow, workflow_name: 'Bob flow', executions: 1, success_rate: 0, avg_time: 5 },
    ]);
    const alice = await overview(actors.alice, '?period=all_time');
    expect(alice.by_workflow.map((w) => w.activity_id)).not.toContain(bobFlow);

    const admin = await overview(actors.admin, '?period=all_time');
    expect(admin).toMatchObject({ total_executions: 18, successful: 9, failed: 4 });
    expect(admin.by_workflow.find((w) => w.activity_id === shared)).toMatchObject({ executions: 2, success_rate: 100 });
    expect(admin.by_workflow.map((w) => w.activity_id).sort((x, y) => x - y)).toEqual([shared, a1, a2, bobFlow, daveFlow]);
  });

  it.each(['last_year', 'LAST_7_DAYS', '7', 'last_0_days', 'last_7_days&period=all_time'])('refuses period=%s with 400', async (period) => {
    const res = await request(app).get(`/api/workflows/metrics/overview?period=${period}`).set('Authorization', actors.alice.auth);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: { status: 400, name: 'BadRequestError', details: { errors: [expect.stringContaining('last_<n>_<hours|days|weeks|months>')] } } });
  });

  it('needs a token', async () => {
    expect((await request(app).get('/api/workflows/metrics/overview')).status).toBe(401);
  });
});
