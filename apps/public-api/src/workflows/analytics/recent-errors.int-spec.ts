import request from 'supertest';
import type express from 'express';
import { buildTestApp, openTestBed, TestBed } from '../../test-support/test-app';
import { Actor, Actors, createActors } from '../executions/test-support/actors';
import { insertActivity, insertExecution } from './test-support/analytics-fixtures';

/** GET /workflows/errors/recent: order, limit, types, summaries, visibility. */

let bed: TestBed;
let app: express.Express;
let actors: Actors;
let invoices: number;
let reports: number;
let newest: number;
let second: number;
let manyKeys: number;
const aliceFailed: number[] = [];
let bobFailed: number;

interface RecentError {
  execution_id: number;
  activity_id: number;
  workflow_name: string;
  failed_step: string | null;
  error_type: string;
  error_message: string | null;
  occurred_at: string;
  retry_count: number;
  inputs_summary: Record<string, unknown>;
}

interface RecentErrors {
  errors: RecentError[];
  total: number;
  by_error_type: Record<string, number>;
}

function get(actor: Actor, query = ''): request.Test {
  return request(app).get(`/api/workflows/errors/recent${query}`).set('Authorization', actor.auth);
}

async function recent(actor: Actor, query = ''): Promise<RecentErrors> {
  const res = await get(actor, query);
  expect(res.status).toBe(200);
  return (res.body as { data: RecentErrors }).data;
}

beforeAll(async () => {
  bed = await openTestBed();
  app = buildTestApp(bed);
  actors = await createActors(bed.database);
  const db = bed.database;
  const alice = actors.alice.id;
  invoices = await insertActivity(db, alice, 'Invoice flow');
  reports = await insertActivity(db, alice, 'Reports flow');
  const bobs = await insertActivity(db, actors.bob.id, 'Bob flow');

  newest = await insertExecution(db, {
    activityId: invoices,
    userId: alice,
    status: 'failed',
    created: { at: '2025-03-01T10:00:00Z' },
    runSeconds: 2.5,
    error: 'HTTP 500: upstream exploded',
    errorType: 'http_error',
    failedNode: 'fetch',
    resumeCount: 2,
    steps: [{ nodeId: 'fetch', name: 'Fetch invoice', status: 'failed', offset: 0, duration: 2, error: 'HTTP 500: upstream exploded' }],
    inputs: {
      document_url: 'https://files.example/a.pdf',
      api_key: 'sk-live-123',
      Password: 'hunter2',
      auth_header: 'Bearer abc.def',
      nested: { password: 'inside', a: 1 },
      list: [1, 2, 3],
      note: 'x'.repeat(500),
      count: 3,
      ratio: 1.5,
      flag: true,
      nothing: null,
      bigid: 12345678901234567890n.toString(),
    },
  });
  second = await insertExecution(db, {
    activityId: reports,
    userId: alice,
    status: 'failed',
    created: { at: '2025-02-28T09:00:00Z' },
    runSeconds: 1,
    error: 'Workflow failed',
    failedNode: 'ghost',
  });
  manyKeys = await insertExecution(db, {
    activityId: invoices,
    userId: alice,
    status: 'failed',
    created: { at: '2025-02-27T09:00:00Z' },
    runSeconds: 1,
    error: 'bad input',
    errorType: 'validation_error',
    inputs: Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`k${String(i).padStart(2, '0')}`, i])),
  });
  aliceFailed.push(newest, second, manyKeys);
  for (let i = 0; i < 3; i += 1) {
    aliceFailed.push(
      await insertExecution(db, {
        activityId: invoices,
        userId: alice,
        status: 'failed',
        created: { at: `2025-01-0${3 - i}T00:00:00Z` },
        runSeconds: 1,
        error: 'LLM provider returned 429',
        errorType: 'llm_error',
        failedNode: 'extract',
      }),
    );
  }
  // Not failures: never listed.
  await insertExecution(db, { activityId: invoices, userId: alice, status: 'completed', created: { at: '2025-03-02T00:00:00Z' }, runSeconds: 1 });
  await insertExecution(db, { activityId: invoices, userId: alice, status: 'cancelled', created: { at: '2025-03-02T00:00:00Z' }, runSeconds: 1 });
  bobFailed = await insertExecution(db, {
    activityId: bobs,
    userId: actors.bob.id,
    status: 'failed',
    created: { at: '2025-03-05T00:00:00Z' },
    runSeconds: 1,
    error: 'bob failed',
    errorType: 'timeout',
  });
});

afterAll(async () => {
  await bed?.close();
});

describe('GET /api/workflows/errors/recent', () => {
  it("lists the caller's failed executions, latest first, with totals over all of them", async () => {
    const data = await recent(actors.alice);
    expect(data.errors.map((e) => e.execution_id)).toEqual(aliceFailed);
    expect(data.total).toBe(6);
    expect(data.by_error_type).toEqual({ http_error: 1, llm_error: 3, unknown: 1, validation_error: 1 });
  });

  it('describes each error: workflow, failed step label, type, message, time, resumes', async () => {
    const [first, next] = (await recent(actors.alice, '?limit=2')).errors;
    expect(first).toMatchObject({
      execution_id: newest,
      activity_id: invoices,
      workflow_name: 'Invoice flow',
      failed_step: 'Fetch invoice',
      error_type: 'http_error',
      error_message: 'HTTP 500: upstream exploded',
      occurred_at: '2025-03-01T10:00:03.500Z', // created + 1 s to start + 2.5 s of run
      retry_count: 2,
    });
    // No step record for the failed node: its id; no error type recorded: unknown.
    expect(next).toMatchObject({ execution_id: second, workflow_name: 'Reports flow', failed_step: 'ghost', error_type: 'unknown', retry_count: 0, inputs_summary: {} });
  });

  it('summarises inputs: short values, sized containers, secrets redacted', async () => {
    const [first] = (await recent(actors.alice, '?limit=1')).errors;
    expect(first?.inputs_summary).toEqual({
      Password: '[REDACTED]',
      api_key: '[REDACTED]',
      auth_header: '[REDACTED]', // a bearer credential under an innocent key
      bigid: '12345678901234567890',
      count: 3,
      document_url: 'https://files.example/a.pdf',
      flag: true,
      list: '[3 items]',
      nested: '{2 keys}', // never its content
      note: `${'x'.repeat(199)}…`,
      nothing: null,
      ratio: 1.5,
    });
    expect(JSON.stringify(first)).not.toMatch(/sk-live-123|hunter2|inside|abc\.def/);
  });

  it('summarises at most 20 input keys', async () => {
    const entry = (await recent(actors.alice)).errors.find((e) => e.execution_id === manyKeys);
    expect(Object.keys(entry?.inputs_summary ?? {})).toEqual(Array.from({ length: 20 }, (_, i) => `k${String(i).padStart(2, '0')}`));
    expect(entry?.inputs_summary['k07']).toBe(7);
  });

  it('honours limit without changing the totals, serving at most 100', async () => {
    const one = await recent(actors.alice, '?limit=1');
    expect(one.errors.map((e) => e.execution_id)).toEqual([newest]);
    expect(one).toMatchObject({ total: 6, by_error_type: { llm_error: 3 } });
    expect((await recent(actors.alice, '?limit=4')).errors.map((e) => e.execution_id)).toEqual(aliceFailed.slice(0, 4));
    expect((await recent(actors.alice, '?limit=100')).errors).toHaveLength(6);
    expect((await recent(actors.alice, '?limit=500')).errors).toHaveLength(6);
  });

  it.each(['0', '-1', 'abc', '1.5', '10&limit=20', '1e2'])('refuses limit=%s with 400', async (limit) => {
    const res = await get(actors.alice, `?limit=${limit}`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: { status: 400, name: 'BadRequestError', details: { errors: ['limit must be a positive integer (at most 100 errors are listed)'] } } });
  });

  it("shows bob only his own errors, and a super administrator everyone's", async () => {
    const bob = await recent(actors.bob);
    expect(bob).toEqual({
      total: 1,
      by_error_type: { timeout: 1 },
      errors: [expect.objectContaining({ execution_id: bobFailed, workflow_name: 'Bob flow', error_message: 'bob failed', failed_step: null })],
    });
    expect((await recent(actors.alice)).errors.map((e) => e.execution_id)).not.toContain(bobFailed);
    const admin = await recent(actors.admin);
    expect(admin.total).toBe(7);
    expect(admin.errors.map((e) => e.execution_id)).toEqual([bobFailed, ...aliceFailed]);
    expect(admin.by_error_type).toEqual({ http_error: 1, llm_error: 3, timeout: 1, unknown: 1, validation_error: 1 });
  });

  it('needs a token', async () => {
    expect((await request(app).get('/api/workflows/errors/recent')).status).toBe(401);
  });
});
