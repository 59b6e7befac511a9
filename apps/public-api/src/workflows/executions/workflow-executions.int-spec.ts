import request from 'supertest';
import { Client } from 'pg';
import type express from 'express';
import { signServiceToken } from '@docflow/internal-auth';
import { MISSING_INPUT_SCHEMA_MESSAGE } from '@docflow/workflow';
import { buildTestApi, buildTestApp, openTestBed, recordingLogger, TEST_JWT_SECRET, TestBed, testConfig } from '../../test-support/test-app';
import { Actors, createActor, createActors, sampleDefinition } from './test-support/actors';
import { ErrorBody, executionEnv, ExecutionApi, INTERNAL_SECRET } from './test-support/execution-api';
import { closedPortUrl, FakeRouter } from '../../test-support/fake-router';
import { signPollingToken } from './polling-token';
import { type AuditLog, periodOf } from '../../identity';
import { pgPool } from '@docflow/persistence';
import { StartOutcome, WorkflowExecutionsRepository } from './workflow-executions.repository';
import { START_STATEMENT } from './execution-queries';
import type { ExecutionServices } from './workflow-executions.feature';
import { ActivitiesRepository } from '../activities/activities.repository';

let bed: TestBed;
let router: FakeRouter;
let app: express.Express;
let api: ExecutionApi;
let actors: Actors;
let audit: AuditLog;
let services: ExecutionServices;

interface Row {
  status: string;
  job_id: string | null;
  started_at: Date | null;
  inputs: Record<string, unknown>;
  deadline_at: Date | null;
}

async function row(id: number): Promise<Row> {
  const rows = (await bed.database.query('SELECT status, job_id, started_at, inputs, deadline_at FROM workflow_executions WHERE id = $1', [id])) as Row[];
  return rows[0]!;
}

beforeAll(async () => {
  bed = await openTestBed();
  router = await FakeRouter.start(executionEnv('').ROUTER_API_KEY!);
  const built = buildTestApi(bed, { config: testConfig(executionEnv(router.url)), logger: recordingLogger() });
  app = built.app;
  audit = built.audit;
  services = built.executions;
  api = new ExecutionApi(app);
  actors = await createActors(bed.database);
});

afterAll(async () => {
  await router?.close();
  await bed?.close();
});

describe("createMany (the event bus's batches)", () => {
  const caller = (a: { id: number }) => ({ id: a.id, role: 'user' as const });

  it("creates the accepted executions in one transaction with the caller's record, and answers each refusal alone", async () => {
    const activityId = await api.createActivity(actors.alice);
    const recorded: { index: number; id: number }[] = [];
    const outcomes = await services.executions.createMany(
      [
        { user: caller(actors.alice), activityId, inputs: { document_url: 'https://files.example/1.pdf' } },
        { user: caller(actors.alice), activityId, inputs: { priority: 'high' } },
        { user: caller(actors.bob), activityId, inputs: { document_url: 'https://files.example/2.pdf' } },
        { user: caller(actors.alice), activityId, inputs: { document_url: 'https://files.example/3.pdf' } },
      ],
      async (tx, created) => {
        recorded.push(...created);
        // The record runs inside the transaction: it sees the executions it names.
        const seen = await tx.query('SELECT count(*)::int AS n FROM workflow_executions WHERE id = ANY($1::int[])', [created.map((c) => c.id)]);
        expect(seen.rows[0]).toEqual({ n: 2 });
      },
    );
    expect(outcomes.map((o) => o.ok)).toEqual([true, false, false, true]);
    expect(outcomes[1]).toMatchObject({ ok: false, error: { status: 400 } });
    expect(outcomes[2]).toMatchObject({ ok: false, error: { status: 404 } });
    const ids = outcomes.flatMap((o) => (o.ok ? [o.value.id] : []));
    expect(recorded).toEqual([
      { index: 0, id: ids[0] },
      { index: 3, id: ids[1] },
    ]);
    expect((await row(ids[0]!)).inputs).toEqual({ document_url: 'https://files.example/1.pdf' });
    expect((await row(ids[1]!)).inputs).toEqual({ document_url: 'https://files.example/3.pdf' });
    expect((await row(ids[1]!)).status).toBe('queued');
    const started = await api.execute(actors.alice, ids[1]!, {});
    expect(started.status).toBe(200);
  });

  it("keeps nothing when the caller's record fails", async () => {
    const activityId = await api.createActivity(actors.alice);
    const before = (await bed.database.query('SELECT count(*)::int AS n FROM workflow_executions')) as { n: number }[];
    await expect(
      services.executions.createMany([{ user: caller(actors.alice), activityId, inputs: { document_url: 'https://files.example/4.pdf' } }], async () => {
        throw new Error('record refused');
      }),
    ).rejects.toThrow('record refused');
    const after = (await bed.database.query('SELECT count(*)::int AS n FROM workflow_executions')) as { n: number }[];
    expect(after[0]!.n).toBe(before[0]!.n);
  });
});

describe('POST /api/workflow-executions', () => {
  it('creates a queued execution with a normalised snapshot of the activity’s definition', async () => {
    const activityId = await api.createActivity(actors.alice);
    const res = await request(app)
      .post('/api/workflow-executions')
      .set('Authorization', actors.alice.auth)
      .send({ data: { activity: activityId, inputs: { document_url: 'https://files.example/x.pdf' } } });
    expect(res.status).toBe(201);
    const data = (res.body as { data: { id: number } }).data;
    expect(res.body).toEqual({ data: { id: data.id, status: 'queued', activity: activityId, started_at: null } });
    const stored = (await bed.database.query('SELECT workflow_definition FROM workflow_executions WHERE id = $1', [data.id])) as {
      workflow_definition: { nodes: { id: string; type: string; data: { task_type?: string } }[] };
    }[];
    const fetch = stored[0]!.workflow_definition.nodes.find((n) => n.id === 'fetch')!;
    expect(fetch.type).toBe('task');
    expect(fetch.data.task_type).toBe('rest_api_task');
  });

  it('refuses a definition without input_schema with the documented message', async () => {
    const { input_schema: _omit, ...bare } = sampleDefinition();
    const activityId = await api.createActivity(actors.alice, bare);
    const res = await request(app)
      .post('/api/workflow-executions')
      .set('Authorization', actors.alice.auth)
      .send({ data: { activity: activityId } });
    expect(res.status).toBe(400);
    expect((res.body as ErrorBody).error.message).toBe(MISSING_INPUT_SCHEMA_MESSAGE);
    // A definition given with the execution replaces the activity's.
    const withOwn = await request(app)
      .post('/api/workflow-executions')
      .set('Authorization', actors.alice.auth)
      .send({ data: { activity: activityId, workflow_definition: sampleDefinition() } });
    expect(withOwn.status).toBe(201);
  });

  it.each([
    ['a string', 'object'],
    ['an array', []],
    ['a number', 5],
    ['a schema that does not compile', { type: 'object', required: 'document_url' }],
  ])('refuses an input_schema that is %s (400), so no execution is recorded that could never start', async (_what, schema) => {
    const activityId = await api.createActivity(actors.alice, { ...sampleDefinition(), input_schema: schema });
    const before = (await bed.database.query('SELECT count(*)::int AS n FROM workflow_executions')) as { n: number }[];
    const res = await request(app)
      .post('/api/workflow-executions')
      .set('Authorization', actors.alice.auth)
      .send({ data: { activity: activityId } });
    expect(res.status).toBe(400);
    expect((res.body as ErrorBody).error).toMatchObject({ status: 400, name: 'BadRequestError', details: { errors: [expect.stringContaining('input_schema')] } });
    expect(await bed.database.query('SELECT count(*)::int AS n FROM workflow_executions')).toEqual(before);
  });

  it('validates the definition where the execution stores it: a cycle is 400 with every problem, and nothing is recorded', async () => {
    const definition = sampleDefinition();
    const cyclic = { ...definition, edges: [...(definition['edges'] as unknown[]), { id: 'back', source: 'end', target: 'fetch' }] };
    const activityId = await api.createActivity(actors.alice, cyclic);
    const before = (await bed.database.query('SELECT count(*)::int AS n FROM workflow_executions')) as { n: number }[];
    const res = await request(app)
      .post('/api/workflow-executions')
      .set('Authorization', actors.alice.auth)
      .send({ data: { activity: activityId } });
    expect(res.status).toBe(400);
    expect((res.body as ErrorBody).error).toMatchObject({ status: 400, name: 'BadRequestError', message: 'Invalid workflow definition' });
    expect((res.body as ErrorBody).error.details.errors?.join(' | ')).toMatch(/Cycles are not allowed/);
    expect(await bed.database.query('SELECT count(*)::int AS n FROM workflow_executions')).toEqual(before);
  });

  it('validates the inputs against input_schema (400 with details.errors)', async () => {
    const activityId = await api.createActivity(actors.alice);
    const res = await request(app)
      .post('/api/workflow-executions')
      .set('Authorization', actors.alice.auth)
      .send({ data: { activity: activityId, inputs: { priority: 'high' } } });
    expect(res.status).toBe(400);
    const errors = (res.body as ErrorBody).error.details.errors ?? [];
    expect(errors.join('\n')).toMatch(/document_url/);
    expect(errors.join('\n')).toMatch(/priority/);
  });

  it('needs an integer activity the caller can see', async () => {
    const missing = await request(app).post('/api/workflow-executions').set('Authorization', actors.alice.auth).send({ data: {} });
    expect(missing.status).toBe(400);
    const bobsActivity = await api.createActivity(actors.bob);
    const other = await request(app)
      .post('/api/workflow-executions')
      .set('Authorization', actors.alice.auth)
      .send({ data: { activity: bobsActivity } });
    expect(other.status).toBe(404);
    expect((other.body as ErrorBody).error.message).toBe('Activity not found');
  });
});

describe('creates from the checked-definition cache (ActivityDefinitionCache)', () => {
  const storedRequired = async (id: number): Promise<unknown> =>
    ((await bed.database.query("SELECT workflow_definition -> 'input_schema' -> 'required' AS r FROM workflow_executions WHERE id = $1", [id])) as { r: unknown }[])[0]!.r;
  const create = (actor: { auth: string }, activityId: number, inputs?: Record<string, unknown>) =>
    request(app)
      .post('/api/workflow-executions')
      .set('Authorization', actor.auth)
      .send({ data: { activity: activityId, ...(inputs ? { inputs } : {}) } });

  it('reads the activity once for repeated creates, and stores what a change written straight to the database says from the next create on', async () => {
    const read = jest.spyOn(ActivitiesRepository.prototype, 'findForExecution');
    try {
      const activityId = await api.createActivity(actors.alice);
      const first = await api.createExecution(actors.alice, activityId);
      const second = await api.createExecution(actors.alice, activityId, { inputs: { document_url: 'https://files.example/c.pdf' } });
      expect(read.mock.calls.filter(([id]) => id === activityId)).toHaveLength(1);
      expect(await storedRequired(first)).toEqual(['document_url']);
      expect(await storedRequired(second)).toEqual(['document_url']);
      // No process hears of this change: the version check in the create's INSERT must see it.
      const changed = { ...sampleDefinition(), input_schema: { type: 'object', properties: { ticket: { type: 'string' } }, required: ['ticket'] } };
      await bed.database.query('UPDATE activities SET workflow_definition = $2::jsonb WHERE id = $1', [activityId, JSON.stringify(changed)]);
      const third = await api.createExecution(actors.alice, activityId);
      expect(await storedRequired(third)).toEqual(['ticket']);
      expect(read.mock.calls.filter(([id]) => id === activityId)).toHaveLength(2);
      // Inputs the cached schema refuses are judged on a fresh read, never on the cache alone.
      const res = await create(actors.alice, activityId, { ticket: 'T-1' });
      expect(res.status).toBe(201);
      expect((await create(actors.alice, activityId, { document_url: 'https://files.example/d.pdf' })).status).toBe(400);
    } finally {
      read.mockRestore();
    }
  });

  it('inserts concurrent creates of cached definitions as one statement, each only while its activity is at its version, and a failing row alone', async () => {
    const activityId = await api.createActivity(actors.alice);
    const other = await api.createActivity(actors.alice);
    const versionOf = async (id: number) => ((await bed.database.query('SELECT xmin::text AS v FROM activities WHERE id = $1', [id])) as { v: string }[])[0]!.v;
    const [current, stale] = [await versionOf(activityId), await versionOf(other)];
    await bed.database.query("UPDATE activities SET name = 'renamed' WHERE id = $1", [other]);
    const repo = new WorkflowExecutionsRepository(bed.database);
    const pool = pgPool(bed.database);
    const names: string[] = [];
    const query = pool.query.bind(pool) as unknown as (config: { name: string }) => Promise<unknown>;
    const spy = jest.spyOn(pool, 'query').mockImplementation(((config: { name: string }) => {
      names.push(config.name);
      return query(config);
    }) as never);
    const insert = (activity: number, version: string, inputs: Record<string, unknown> = {}) =>
      repo.insertIfActivityVersion({ activityId: activity, userId: actors.alice.id, definitionJson: JSON.stringify({ marker: activity }), inputs }, version);
    let outcomes: ({ id: number } | null)[];
    try {
      outcomes = await Promise.all([insert(activityId, current), insert(activityId, current), insert(other, stale), insert(activityId, current, { n: 3 })]);
      // Inputs PostgreSQL refuses fail their batch: the batch is run again one insert at a time.
      const batch = [insert(activityId, current), insert(activityId, current, { bad: 'nul \u0000' }), insert(activityId, current)];
      const settled = await Promise.allSettled([insert(activityId, current), ...batch]);
      expect(settled.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    } finally {
      spy.mockRestore();
    }
    // Alone, then three behind it in one; alone, then the failing batch of three and its three inserts one by one.
    expect(names).toEqual([
      'wfx_insert_versioned',
      'wfx_insert_versioned_many',
      'wfx_insert_versioned',
      'wfx_insert_versioned_many',
      'wfx_insert_versioned',
      'wfx_insert_versioned',
      'wfx_insert_versioned',
    ]);
    expect(outcomes.map((o) => o !== null)).toEqual([true, true, false, true]);
    const stored = (await bed.database.query('SELECT id, activity_id, inputs FROM workflow_executions WHERE id = ANY($1::int[]) ORDER BY id', [outcomes.flatMap((o) => (o ? [o.id] : []))])) as {
      id: number;
      activity_id: number;
      inputs: unknown;
    }[];
    expect(stored.map((r) => [r.activity_id, r.inputs])).toEqual([
      [activityId, {}],
      [activityId, {}],
      [activityId, { n: 3 }],
    ]);
    expect(await bed.database.query('SELECT 1 FROM workflow_executions WHERE activity_id = $1', [other])).toEqual([]);
  });

  it('answers 404 once the activity is given to another owner or deleted, though its definition was cached', async () => {
    const activityId = await api.createActivity(actors.alice);
    await api.createExecution(actors.alice, activityId);
    await bed.database.query('UPDATE activities SET owner_id = $2 WHERE id = $1', [activityId, actors.bob.id]);
    expect((await create(actors.alice, activityId)).status).toBe(404);
    expect((await create(actors.bob, activityId)).status).toBe(201);
    await bed.database.query('DELETE FROM workflow_executions WHERE activity_id = $1', [activityId]);
    await bed.database.query('DELETE FROM activities WHERE id = $1', [activityId]);
    expect((await create(actors.bob, activityId)).status).toBe(404);
  });
});

describe('starts grouped in the repository (docs/decisions.md, "Router job registrations and execution starts grouped")', () => {
  it('runs concurrent starts as one transaction, each with its own outcome, the running cap counted across the batch, and a failing start alone', async () => {
    const dave = await createActor(bed.database, 'dave');
    const erin = await createActor(bed.database, 'erin');
    const daveActivity = await api.createActivity(dave);
    const erinActivity = await api.createActivity(erin);
    const daves: number[] = [];
    for (let i = 0; i < 5; i++) daves.push(await api.createExecution(dave, daveActivity, { inputs: { document_url: 'https://files.example/d.pdf' } }));
    const erins = [await api.createExecution(erin, erinActivity, { inputs: { document_url: 'https://files.example/e.pdf' } }), await api.createExecution(erin, erinActivity)];
    const repo = new WorkflowExecutionsRepository(bed.database);
    const texts: string[] = [];
    // Starts go through a pooled connection's own query (querySqlPrepared), not the pool's.
    const query = Client.prototype.query as (...args: unknown[]) => unknown;
    const spy = jest.spyOn(Client.prototype, 'query').mockImplementation(function (this: Client, ...args: unknown[]) {
      if (typeof args[0] === 'string' && args[0].includes('pg_advisory_xact_lock')) texts.push(args[0]);
      return query.apply(this, args);
    } as never);
    const at = new Date();
    const start = (id: number, userId: number, inputs: Record<string, unknown> | null = null) => repo.startQueued({ id, userId, inputs, jobId: `wf_${id}`, at, maxRunning: 3, quota: null });
    let outcomes: StartOutcome[];
    try {
      outcomes = await Promise.all([
        // Alone: nothing was in flight.
        start(daves[0]!, dave.id),
        // Queued behind it, one batch: erin's first (inputs stored at create), dave's four more (three fit under the cap of 3 with
        // the first), erin's second (nothing stored: unvalidated), someone else's execution (missing), and one whose inputs
        // PostgreSQL refuses, which fails its batch: the batch is run again one start at a time.
        start(erins[0]!, erin.id),
        start(daves[1]!, dave.id),
        start(daves[2]!, dave.id),
        start(daves[3]!, dave.id),
        start(erins[1]!, erin.id),
        start(daves[4]!, erin.id),
      ]);
      await expect(start(daves[4]!, dave.id, { bad: 'nul \u0000' })).rejects.toThrow();
    } finally {
      spy.mockRestore();
    }
    const starts = texts.map((t) => t.split(`EXECUTE ${START_STATEMENT.name}(`).length - 1);
    // One alone, then the six behind it in one message; the last start alone, whose error is its own.
    expect(starts).toEqual([1, 6, 1]);
    expect(outcomes.map((o) => o.outcome)).toEqual(['started', 'started', 'started', 'started', 'limit', 'unvalidated', 'missing']);
    expect(outcomes[4]).toEqual({ outcome: 'limit', running: 3 });
    const started = outcomes[1];
    expect(started?.outcome === 'started' && started.row).toMatchObject({ id: erins[0], userId: erin.id, inputs: { document_url: 'https://files.example/e.pdf' } });
    expect((await row(daves[4]!)).status).toBe('queued');
    expect((await row(daves[3]!)).status).toBe('queued');
    expect((await row(daves[2]!)).job_id).toBe(`wf_${daves[2]}`);
  });

  it('runs the starts of a batch one by one when the batch fails, so that one start’s error is its own', async () => {
    const frank = await createActor(bed.database, 'frank');
    const activityId = await api.createActivity(frank);
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) ids.push(await api.createExecution(frank, activityId, { inputs: { document_url: 'https://files.example/f.pdf' } }));
    const repo = new WorkflowExecutionsRepository(bed.database);
    const start = (id: number, inputs: Record<string, unknown> | null) => repo.startQueued({ id, userId: frank.id, inputs, jobId: `wf_${id}`, at: new Date(), maxRunning: 10, quota: null });
    // PostgreSQL refuses \u0000 in jsonb: the second start's statements fail, and with them the batch's transaction.
    const results = await Promise.allSettled([start(ids[0]!, null), start(ids[1]!, { document_url: 'nul \u0000' }), start(ids[2]!, null)]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect([(await row(ids[0]!)).status, (await row(ids[1]!)).status, (await row(ids[2]!)).status]).toEqual(['running', 'queued', 'running']);
  });
});

describe('the monthly quota counted in the start statement (docs/decisions.md, "Throughput: one commit per start")', () => {
  const period = '2031-07-01';
  const terms = (executionsMonthly: number | null, llmCostMonthly: number | null = null) => ({ period, executionsMonthly, llmCostMonthly });
  const counted = async (userId: number): Promise<number | undefined> =>
    ((await bed.database.query('SELECT executions FROM user_quota_periods WHERE user_id = $1 AND period = $2::date', [userId, period])) as { executions: number }[])[0]?.executions;

  async function executionsOf(name: string, n: number): Promise<{ userId: number; ids: number[] }> {
    const user = await createActor(bed.database, name);
    const activityId = await api.createActivity(user);
    const ids: number[] = [];
    for (let i = 0; i < n; i++) ids.push(await api.createExecution(user, activityId, { inputs: { document_url: 'https://files.example/q.pdf' } }));
    return { userId: user.id, ids };
  }

  it('counts starts up to the limit exactly, refuses the next with the count it read, and counts nothing a start refused for its own reasons', async () => {
    const { userId, ids } = await executionsOf('quota-exact', 4);
    const repo = new WorkflowExecutionsRepository(bed.database);
    const start = (id: number, maxRunning = 10) => repo.startQueued({ id, userId, inputs: null, jobId: `wf_${id}`, at: new Date(), maxRunning, quota: terms(2) });
    expect(await start(ids[0]!)).toMatchObject({ outcome: 'started', quota: { executionsMonthly: 2, used: 0, counted: 1 } });
    // Under the limit, but the running cap refuses it: nothing counted.
    expect(await start(ids[1]!, 1)).toEqual({ outcome: 'limit', running: 1 });
    // Not queued any more (started above): nothing counted.
    expect(await start(ids[0]!)).toEqual({ outcome: 'not_queued', status: 'running' });
    expect(await counted(userId)).toBe(1);
    // The start that reaches the limit passes; the next is refused, with the count the statement read, and stays queued.
    expect(await start(ids[1]!)).toMatchObject({ outcome: 'started', quota: { used: 1, counted: 2 } });
    expect(await start(ids[2]!)).toEqual({ outcome: 'quota', found: { executionsMonthly: 2, llmCostMonthly: null, llmUsed: null, used: 2, counted: null } });
    expect((await row(ids[2]!)).status).toBe('queued');
    // Past the quota, the quota's refusal comes first (as when the quota was taken before the start): even for no such execution.
    expect(await start(999_999_999)).toMatchObject({ outcome: 'quota' });
    expect(await counted(userId)).toBe(2);
    // Without a quota, a start counts nothing.
    expect(await repo.startQueued({ id: ids[3]!, userId, inputs: null, jobId: `wf_${ids[3]}`, at: new Date(), maxRunning: 10, quota: null })).toMatchObject({ outcome: 'started', quota: null });
    expect(await counted(userId)).toBe(2);
  });

  it('counts concurrent starts of two processes once each and refuses exactly those past the limit', async () => {
    const { userId, ids } = await executionsOf('quota-race', 12);
    // Two repositories: two processes' grouped starts, each batch one transaction of its own.
    const repos = [new WorkflowExecutionsRepository(bed.database), new WorkflowExecutionsRepository(bed.database)];
    const outcomes = await Promise.all(ids.map((id, i) => repos[i % 2]!.startQueued({ id, userId, inputs: null, jobId: `wf_${id}`, at: new Date(), maxRunning: 100, quota: terms(5) })));
    expect(outcomes.filter((o) => o.outcome === 'started')).toHaveLength(5);
    expect(outcomes.filter((o) => o.outcome === 'quota')).toHaveLength(7);
    expect(await counted(userId)).toBe(5);
    const running = (await bed.database.query("SELECT count(*)::int AS n FROM workflow_executions WHERE user_id = $1 AND status = 'running'", [userId])) as { n: number }[];
    expect(running[0]!.n).toBe(5);
    // Each counted start saw its own count: 1 to 5, once each.
    expect(outcomes.flatMap((o) => (o.outcome === 'started' ? [o.quota?.counted] : [])).sort()).toEqual([1, 2, 3, 4, 5]);
  });

  it('refuses by the guard alone when another writer counted between the statement’s read and its count', async () => {
    const { userId, ids } = await executionsOf('quota-guard', 1);
    await bed.database.query('INSERT INTO user_quota_periods (user_id, period, executions) VALUES ($1, $2::date, 1)', [userId, period]);
    const other = new Client({ connectionString: bed.db.url });
    await other.connect();
    try {
      // Another process (one that takes no start lock) holds the period's row, raised to the limit, until it commits.
      await other.query('BEGIN');
      await other.query('UPDATE user_quota_periods SET executions = 2 WHERE user_id = $1 AND period = $2::date', [userId, period]);
      const pending = new WorkflowExecutionsRepository(bed.database).startQueued({ id: ids[0]!, userId, inputs: null, jobId: `wf_${ids[0]}`, at: new Date(), maxRunning: 10, quota: terms(2) });
      await new Promise((r) => setTimeout(r, 200));
      await other.query('COMMIT');
      // The statement read 1 (under the limit); its guard met 2 on the locked row and counted nothing.
      expect(await pending).toMatchObject({ outcome: 'quota', found: { used: 1, counted: null } });
    } finally {
      await other.end();
    }
    expect(await counted(userId)).toBe(2);
    expect((await row(ids[0]!)).status).toBe('queued');
  });

  it('refuses a start past the LLM cost quota without counting it', async () => {
    const { userId, ids } = await executionsOf('quota-llm', 2);
    const repo = new WorkflowExecutionsRepository(bed.database);
    const start = (id: number) =>
      repo.startQueued({ id, userId, inputs: null, jobId: `wf_${id}`, at: new Date(), maxRunning: 10, quota: { period: periodOf(new Date()), executionsMonthly: null, llmCostMonthly: 0.5 } });
    expect(await start(ids[0]!)).toMatchObject({ outcome: 'started', quota: { llmCostMonthly: 0.5, llmUsed: 0, counted: 1 } });
    await bed.database.query('UPDATE workflow_executions SET total_cost = 0.5 WHERE id = $1', [ids[0]]);
    expect(await start(ids[1]!)).toMatchObject({ outcome: 'quota', found: { llmCostMonthly: 0.5, llmUsed: 0.5, counted: null } });
    const rows = (await bed.database.query('SELECT executions FROM user_quota_periods WHERE user_id = $1', [userId])) as { executions: number }[];
    expect(rows).toEqual([{ executions: 1 }]);
  });

  it('gives a counted start back in the statement that puts it back to queued, once', async () => {
    const { userId, ids } = await executionsOf('quota-back', 1);
    const repo = new WorkflowExecutionsRepository(bed.database);
    const at = new Date();
    const id = ids[0]!;
    expect(await repo.startQueued({ id, userId, inputs: null, jobId: `wf_${id}`, at, maxRunning: 10, quota: terms(3) })).toMatchObject({ outcome: 'started' });
    expect(await counted(userId)).toBe(1);
    expect(await repo.revertStart(id, `wf_${id}`, at, period)).toBe(true);
    expect(await counted(userId)).toBe(0);
    expect((await row(id)).status).toBe('queued');
    // A revert that matches nothing (already put back) gives nothing back.
    await bed.database.query('UPDATE user_quota_periods SET executions = 1 WHERE user_id = $1 AND period = $2::date', [userId, period]);
    expect(await repo.revertStart(id, `wf_${id}`, at, period)).toBe(false);
    expect(await counted(userId)).toBe(1);
  });
});

describe('POST /api/workflow-executions/{id}/execute', () => {
  it('starts the execution and submits job wf_<id> of type task_based_workflow with the payload and the caller’s token', async () => {
    const activityId = await api.createActivity(actors.alice, sampleDefinition(), { execution_deadline_seconds: 120, data_shield_policy: { required: true } });
    const id = await api.createExecution(actors.alice, activityId, { inputs: { priority: 2, document_url: 'https://files.example/old.pdf' } });
    const res = await api.execute(actors.alice, id, { document_url: 'https://files.example/a.pdf', mime_type: 'application/pdf' });
    expect(res.status).toBe(200);
    const body = res.body as { success: boolean; message: string; execution_id: number; job_id: string; data: { id: number; status: string; started_at: string } };
    expect(body).toMatchObject({ success: true, execution_id: id, job_id: `wf_${id}`, data: { id, status: 'running' } });
    expect(Date.parse(body.data.started_at)).not.toBeNaN();

    const job = router.job(`wf_${id}`)!;
    expect(job).toMatchObject({ job_type: 'task_based_workflow', apiKey: executionEnv('').ROUTER_API_KEY });
    // The user's JWT stays with the public API (issue #13): the job carries a signed user id instead.
    expect(JSON.stringify(job)).not.toContain(actors.alice.token);
    expect(job.payload).toMatchObject({
      execution_id: id,
      activity_id: activityId,
      user_id: actors.alice.id,
      inputs: { priority: 2, document_url: 'https://files.example/a.pdf', mime_type: 'application/pdf' },
      data_shield_policy: { required: true },
    });
    expect((job.payload['workflow_definition'] as { nodes: { type: string }[] }).nodes.map((n) => n.type)).toEqual(['start', 'task', 'end']);
    const deadline = Date.parse(job.payload['deadline_at'] as string);
    expect(deadline - Date.parse(body.data.started_at)).toBe(120_000);

    const stored = await row(id);
    expect(stored).toMatchObject({ status: 'running', job_id: `wf_${id}` });
    expect(stored.deadline_at?.getTime()).toBe(deadline);
  });

  it('answers 409 unless the execution is queued', async () => {
    const id = await api.started(actors.alice);
    const again = await api.execute(actors.alice, id);
    expect(again.status).toBe(409);
    expect(router.jobs.filter((j) => j.job_id === `wf_${id}`)).toHaveLength(1);
  });

  it('requires document_url in the document form, and inputs that satisfy the schema', async () => {
    const id = await api.createExecution(actors.alice, await api.createActivity(actors.alice));
    const noUrl = await api.execute(actors.alice, id, { mime_type: 'application/pdf' });
    expect(noUrl.status).toBe(400);
    expect((noUrl.body as ErrorBody).error.details.errors).toEqual(['document_url is required and must be a non-empty string']);
    const noInputs = await api.execute(actors.alice, id, {});
    expect(noInputs.status).toBe(400);
    expect((await row(id)).status).toBe('queued');
  });

  it('puts the execution back to queued and answers 503 when the router cannot queue or is unreachable', async () => {
    const id = await api.createExecution(actors.alice, await api.createActivity(actors.alice));
    router.mode = 'broker_down';
    try {
      const res = await api.execute(actors.alice, id);
      expect(res.status).toBe(503);
      expect((res.body as ErrorBody).error.name).toBe('ServiceUnavailableError');
    } finally {
      router.mode = 'queue';
    }
    expect(await row(id)).toMatchObject({ status: 'queued', started_at: null });

    const downApp = buildTestApp(bed, { config: testConfig(executionEnv(await closedPortUrl())) });
    const down = await new ExecutionApi(downApp).execute(actors.alice, id);
    expect(down.status).toBe(503);
    expect((await row(id)).status).toBe('queued');

    // The router is back: the same execution starts.
    const ok = await api.execute(actors.alice, id);
    expect(ok.status).toBe(200);
    expect(router.job(`wf_${id}`)).toBeDefined();
  });

  it('lets at most 10 executions of one user run: 15 parallel starts give exactly 10 accepted and 5 refused with 429', async () => {
    const carol = await createActor(bed.database, 'carol');
    const activityId = await api.createActivity(carol);
    const ids: number[] = [];
    for (let i = 0; i < 15; i++) ids.push(await api.createExecution(carol, activityId));
    const results = await Promise.all(ids.map((id) => api.execute(carol, id)));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(5);
    const refused = results.find((r) => r.status === 429)!;
    expect((refused.body as ErrorBody).error).toMatchObject({ name: 'TooManyRequestsError', details: { limit: 10 } });
    const counts = (await bed.database.query('SELECT status, count(*)::int AS n FROM workflow_executions WHERE user_id = $1 GROUP BY status ORDER BY status', [carol.id])) as {
      status: string;
      n: number;
    }[];
    expect(counts).toEqual([
      { status: 'queued', n: 5 },
      { status: 'running', n: 10 },
    ]);
    expect(router.jobs.filter((j) => j.payload['user_id'] === carol.id)).toHaveLength(10);

    // Another user is not affected; a finished run frees a slot.
    expect((await api.execute(actors.bob, await api.createExecution(actors.bob, await api.createActivity(actors.bob)))).status).toBe(200);
    const runningId = ids.find((_id, i) => results[i]!.status === 200)!;
    expect((await api.postResult(runningId, { job_id: `wf_${runningId}`, status: 'completed', outputs: {} })).status).toBe(200);
    const queuedId = ids.find((_id, i) => results[i]!.status === 429)!;
    expect((await api.execute(carol, queuedId)).status).toBe(200);
  });

  it('answers 404 for another user’s execution', async () => {
    const id = await api.createExecution(actors.alice, await api.createActivity(actors.alice));
    expect((await api.execute(actors.bob, id)).status).toBe(404);
  });
});

describe('nodes with a credential_id (spec 2.7, rest_api_task rule 3)', () => {
  function definitionUsing(credentialId: unknown): Record<string, unknown> {
    const def = sampleDefinition() as { nodes: { id: string; data: { config: Record<string, unknown> } }[] };
    const fetch = def.nodes.find((n) => n.id === 'fetch')!;
    fetch.data.config = { ...fetch.data.config, headers: { Authorization: 'Bearer {{api_key}}', 'X-Doc': '{{document_url}}' }, credential_id: credentialId };
    return def as unknown as Record<string, unknown>;
  }

  async function storeCredential(auth: string, fields: Record<string, string>): Promise<number> {
    const res = await request(app)
      .post('/api/credentials')
      .set('Authorization', auth)
      .send({ data: { name: 'API', provider: 'example', fields } });
    expect(res.status).toBe(201);
    return (res.body as { data: { id: number } }).data.id;
  }

  function nodeCredential(executionId: number, body: Record<string, unknown>, auth = `Bearer ${signServiceToken(INTERNAL_SECRET, 'workflow-processor')}`): request.Test {
    return request(app).post(`/api/workflow-executions/internal/${executionId}/node-credential`).set('Authorization', auth).send(body);
  }

  it('sends a job holding only the credential id, never a value; the processor opens it for the running job’s node', async () => {
    const credentialId = await storeCredential(actors.alice.auth, { api_key: 'sk-bound-secret' });
    const id = await api.started(actors.alice, definitionUsing(String(credentialId)));
    const jobId = (await row(id)).job_id!;
    // What the router publishes on workflow_queue is this payload, unmodified (spec 4.16).
    const job = router.job(jobId)!;
    expect(JSON.stringify(job)).not.toContain('sk-bound-secret');
    const fetch = (job.payload.workflow_definition as { nodes: { id: string; data: { config: Record<string, unknown> } }[] }).nodes.find((n) => n.id === 'fetch')!;
    expect(fetch.data.config).toEqual({
      url: 'https://example.com/status/{{document_url}}',
      method: 'GET',
      headers: { Authorization: 'Bearer {{api_key}}', 'X-Doc': '{{document_url}}' },
      credential_id: credentialId,
    });
    const stored = JSON.stringify(await bed.database.query('SELECT workflow_definition FROM workflow_executions WHERE id = $1', [id]));
    expect(stored).not.toContain('sk-bound-secret');

    const opened = await nodeCredential(id, { job_id: jobId, node_id: 'fetch' });
    expect(opened.status).toBe(200);
    expect(opened.body).toEqual({ data: { credential_id: credentialId, fields: { api_key: 'sk-bound-secret' } } });
    expect(opened.headers['cache-control']).toBe('no-store');
    // Another node, another job, no service credentials, a bad body: nothing.
    expect((await nodeCredential(id, { job_id: jobId, node_id: 'start' })).status).toBe(404);
    expect((await nodeCredential(id, { job_id: `${jobId}_resume_1`, node_id: 'fetch' })).status).toBe(404);
    expect((await nodeCredential(id, { job_id: jobId, node_id: 'fetch' }, actors.alice.auth)).status).toBe(401);
    expect((await nodeCredential(id, { node_id: 'fetch' })).status).toBe(400);
    // Once the run has ended, the credential is no longer handed out.
    await bed.database.query("UPDATE workflow_executions SET status = 'completed' WHERE id = $1", [id]);
    expect((await nodeCredential(id, { job_id: jobId, node_id: 'fetch' })).status).toBe(404);
  });

  it('refuses to start with another user’s credential (400) and leaves the execution queued', async () => {
    const bobs = await storeCredential(actors.bob.auth, { api_key: 'sk-bob' });
    const id = await api.createExecution(actors.alice, await api.createActivity(actors.alice, definitionUsing(bobs)));
    const jobsBefore = router.jobs.length;
    const res = await api.execute(actors.alice, id);
    expect(res.status).toBe(400);
    expect((res.body as ErrorBody).error.details).toMatchObject({ errors: [expect.stringContaining('node fetch: credential_id')] });
    expect((await row(id)).status).toBe('queued');
    expect(router.jobs.length).toBe(jobsBefore);
  });
});

describe('reading executions', () => {
  let id: number;

  beforeAll(async () => {
    id = await api.started(actors.alice);
  });

  it('GET /{id} returns the execution to its owner and a super administrator, 404 to others', async () => {
    const res = await request(app).get(`/api/workflow-executions/${id}`).set('Authorization', actors.alice.auth);
    expect(res.status).toBe(200);
    expect((res.body as { data: Record<string, unknown> }).data).toMatchObject({
      id,
      status: 'running',
      inputs: { document_url: 'https://files.example/a.pdf' },
      results: null,
      completed_at: null,
      completedAt: null,
      error: null,
    });
    expect((await request(app).get(`/api/workflow-executions/${id}`).set('Authorization', actors.admin.auth)).status).toBe(200);
    const other = await request(app).get(`/api/workflow-executions/${id}`).set('Authorization', actors.bob.auth);
    expect(other.status).toBe(404);
    expect((other.body as ErrorBody).error.message).toBe('Workflow execution not found');
    expect((await api.status(actors.bob, id)).status).toBe(404);
    expect((await request(app).get(`/api/workflow-executions/${id}/timeline`).set('Authorization', actors.bob.auth)).status).toBe(404);
    expect((await request(app).get(`/api/workflow-executions/${id}`)).status).toBe(401);
  });

  it('accepts a webhook polling token for its own execution only', async () => {
    const token = signPollingToken({ executionId: id, userId: actors.alice.id }, TEST_JWT_SECRET);
    const res = await request(app).get(`/api/workflow-executions/${id}`).set('Authorization', `Bearer ${token}`);
    expect(res.status).toBe(200);
    expect((res.body as { data: { id: number } }).data.id).toBe(id);
    const other = await api.started(actors.alice);
    expect((await request(app).get(`/api/workflow-executions/${other}`).set('Authorization', `Bearer ${token}`)).status).toBe(404);
    // It is not an access token anywhere else.
    expect((await request(app).get('/api/activities').set('Authorization', `Bearer ${token}`)).status).toBe(401);
    const forged = signPollingToken({ executionId: id, userId: actors.alice.id }, 'another-secret-0123456789abcdef');
    expect((await request(app).get(`/api/workflow-executions/${id}`).set('Authorization', `Bearer ${forged}`)).status).toBe(401);
  });

  it('limits polling to 60 reads a minute per caller and execution', async () => {
    const fresh = await api.createExecution(actors.bob, await api.createActivity(actors.bob));
    const codes: number[] = [];
    for (let i = 0; i < 61; i++) codes.push((await request(app).get(`/api/workflow-executions/${fresh}`).set('Authorization', actors.bob.auth)).status);
    expect(codes.slice(0, 60).every((c) => c === 200)).toBe(true);
    expect(codes[60]).toBe(429);
    // The status read is not the polled endpoint.
    expect((await api.status(actors.bob, fresh)).status).toBe(200);
  });

  it('counts polling across processes: a second app over the same database shares the window', async () => {
    const second = buildTestApi(bed, { config: testConfig(executionEnv(router.url)), logger: recordingLogger() }).app;
    const fresh = await api.createExecution(actors.bob, await api.createActivity(actors.bob));
    const codes: number[] = [];
    for (let i = 0; i < 62; i++)
      codes.push(
        (
          await request(i % 2 === 0 ? app : second)
            .get(`/api/workflow-executions/${fresh}`)
            .set('Authorization', actors.bob.auth)
        ).status,
      );
    expect(codes.slice(0, 60).every((c) => c === 200)).toBe(true);
    expect(codes.slice(60)).toEqual([429, 429]);
  });
});

describe('PUT /api/workflow-executions/internal/{id}/results', () => {
  it('audits a run for its owner: workflow.execution.created, .started, then .completed when the result ends it', async () => {
    const id = await api.started(actors.alice);
    expect((await api.postResult(id, { job_id: `wf_${id}`, status: 'processing', sequence: 1 })).status).toBe(200);
    expect((await api.postResult(id, { job_id: `wf_${id}`, status: 'completed', sequence: 2, outputs: {} })).status).toBe(200);
    await audit.flush();
    const rows = (await bed.database.query("SELECT action, actor_user_id FROM audit_log WHERE details->>'execution_id' = $1 ORDER BY id", [String(id)])) as {
      action: string;
      actor_user_id: number;
    }[];
    expect(rows).toEqual(['workflow.execution.created', 'workflow.execution.started', 'workflow.execution.completed'].map((action) => ({ action, actor_user_id: actors.alice.id })));
  });

  it('needs the service key or a service JWT', async () => {
    const id = await api.started(actors.alice);
    const msg = { job_id: `wf_${id}`, status: 'processing' as const, sequence: 1 };
    const url = `/api/workflow-executions/internal/${id}/results`;
    expect((await request(app).put(url).send(msg)).status).toBe(401);
    expect((await request(app).put(url).set('X-Service-Key', 'wrong').send(msg)).status).toBe(401);
    expect((await request(app).put(url).set('Authorization', actors.alice.auth).send(msg)).status).toBe(401);
    const viaJwt = await request(app)
      .put(url)
      .set('Authorization', `Bearer ${signServiceToken(INTERNAL_SECRET, 'workflow-processor')}`)
      .send(msg);
    expect(viaJwt.status).toBe(200);
    expect(viaJwt.body).toEqual({ data: { id, applied: true, status: 'running' } });
    expect((await api.postResult(id, msg)).body).toEqual({ data: { id, applied: false, status: 'running' } });
    expect((await api.postResult(999999, { job_id: 'wf_999999', status: 'processing' })).status).toBe(404);
    expect((await api.postResult(id, { job_id: `wf_${id}`, status: 'done' as never })).status).toBe(400);
  });

  it('writes task states, outputs and the step timeline; GET /timeline orders steps by start', async () => {
    const id = await api.started(actors.alice);
    const long = 'x'.repeat(800);
    const res = await api.postResult(id, {
      job_id: `wf_${id}`,
      status: 'completed',
      sequence: 5,
      outputs: { fetch: { data: { ok: true } }, summarize: { summary: long } },
      task_states: {
        start: { status: 'completed', task_type: 'custom_task', label: 'Start', started_at: '2030-01-01T00:00:00.000Z', completed_at: '2030-01-01T00:00:00.100Z' },
        summarize: {
          status: 'completed',
          task_type: 'summarization_task',
          label: 'Summarize',
          started_at: '2030-01-01T00:00:03.000Z',
          completed_at: '2030-01-01T00:00:07.250Z',
          cost: 0.0125,
          result: { summary: long },
        },
        fetch: {
          status: 'completed',
          task_type: 'rest_api_task',
          label: 'Fetch status',
          started_at: '2030-01-01T00:00:01.000Z',
          completed_at: '2030-01-01T00:00:02.500Z',
          cost: 0.5,
          result: { data: { ok: true } },
        },
        branch: { status: 'skipped', task_type: 'llm_task' },
        later: { status: 'pending', task_type: 'llm_task' },
      },
    });
    expect(res.status).toBe(200);
    const timeline = await request(app).get(`/api/workflow-executions/${id}/timeline`).set('Authorization', actors.alice.auth);
    expect(timeline.status).toBe(200);
    const data = (timeline.body as { data: Record<string, unknown> & { timeline: Record<string, unknown>[] } }).data;
    expect(data).toMatchObject({ execution_id: id, status: 'completed', total_cost: 0.5125, inputs: { document_url: 'https://files.example/a.pdf' } });
    expect(typeof data['total_duration_seconds']).toBe('number');
    expect(data.timeline.map((s) => s['step_name'])).toEqual(['Start', 'Fetch status', 'Summarize', 'branch']);
    expect(data.timeline[1]).toMatchObject({ step_type: 'rest_api_task', status: 'completed', duration_seconds: 1.5, cost: 0.5, result_summary: '{"data":{"ok":true}}' });
    expect(data.timeline[2]!['duration_seconds']).toBe(4.25);
    expect((data.timeline[2]!['result_summary'] as string).length).toBe(500);
    expect(data.timeline[3]).toMatchObject({ status: 'skipped', started_at: null, duration_seconds: null });

    const read = (await request(app).get(`/api/workflow-executions/${id}`).set('Authorization', actors.alice.auth)).body as { data: Record<string, unknown> };
    expect(read.data).toMatchObject({ status: 'completed', results: { fetch: { data: { ok: true } } }, outputs: { fetch: { data: { ok: true } } } });
    expect(read.data['completed_at']).toEqual(read.data['completedAt']);
    expect(read.data['completed_at']).not.toBeNull();
  });

  it('records a failure with error, error_type and failed_node', async () => {
    const id = await api.started(actors.alice);
    await api
      .postResult(id, {
        job_id: `wf_${id}`,
        status: 'failed',
        error: 'HTTP 502: bad gateway',
        error_type: 'http_error',
        failed_node: 'fetch',
        task_states: { fetch: { status: 'failed', task_type: 'rest_api_task', label: 'Fetch status', error: 'HTTP 502: bad gateway', error_type: 'http_error' } },
      })
      .expect(200);
    const status = await api.status(actors.alice, id);
    expect((status.body as { data: Record<string, unknown> }).data).toMatchObject({
      status: 'failed',
      error: 'HTTP 502: bad gateway',
      error_type: 'http_error',
      failed_node: 'fetch',
      awaiting_node: null,
      correlation_token: null,
      task_states: { fetch: { status: 'failed' } },
    });
    const steps = (await bed.database.query('SELECT status, error, error_type FROM workflow_execution_steps WHERE execution_id = $1', [id])) as Record<string, unknown>[];
    expect(steps).toEqual([{ status: 'failed', error: 'HTTP 502: bad gateway', error_type: 'http_error' }]);
  });
});

describe('inputs given to execute', () => {
  it('are stored as sent, quotes and backslashes included (the start statement writes them as a literal)', async () => {
    const id = await api.createExecution(actors.alice, await api.createActivity(actors.alice));
    const inputs = { document_url: 'https://files.example/a.pdf', note: `O'Brien said "hi" \\ C:\\temp\\new '' \\'` };
    const res = await api.execute(actors.alice, id, { inputs });
    expect(res.status).toBe(200);
    expect((await row(id)).inputs).toEqual(inputs);
  });
});
