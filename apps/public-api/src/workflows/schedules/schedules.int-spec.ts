import request from 'supertest';
import type { PublicApi } from '../../app';
import { buildTestApi, openTestBed, recordingLogger, TestBed, testConfig } from '../../test-support/test-app';
import { FakeRouter } from '../../test-support/fake-router';
import { type Actors, createActors } from '../executions/test-support/actors';
import { executionEnv, ExecutionApi, ROUTER_KEY } from '../executions/test-support/execution-api';
import type { ScheduleView } from './schedules.service';

let bed: TestBed;
let router: FakeRouter;
let api: PublicApi;
let executions: ExecutionApi;
let actors: Actors;
let activityId: number;

async function create(body: Record<string, unknown>, auth = actors.alice.auth, path = '/api/workflow-schedules'): Promise<request.Response> {
  return request(api.app).post(path).set('authorization', auth).send({ data: body });
}

async function makeDue(id: number): Promise<void> {
  await bed.database.query("UPDATE workflow_schedules SET next_run_at = now() - interval '1 minute' WHERE id = $1", [id]);
}

async function read(id: number): Promise<ScheduleView> {
  return ((await request(api.app).get(`/api/workflow-schedules/${id}`).set('authorization', actors.alice.auth)).body as { data: ScheduleView }).data;
}

beforeAll(async () => {
  bed = await openTestBed();
  router = await FakeRouter.start(ROUTER_KEY);
  api = buildTestApi(bed, { config: testConfig(executionEnv(router.url)), logger: recordingLogger() });
  executions = new ExecutionApi(api.app);
  actors = await createActors(bed.database);
  activityId = await executions.createActivity(actors.alice);
});

afterAll(async () => {
  await router?.close();
  await bed?.close();
});

describe('workflow schedules (spec 2.15)', () => {
  it('creates a schedule with its next run in its time zone, and refuses bad input with the reason', async () => {
    const res = await create({ name: 'Morning report', activity: activityId, cron_expression: '0 9 * * *', timezone: 'Europe/Paris', inputs: { document_url: 'https://files.example/daily.pdf' } });
    expect(res.status).toBe(201);
    const s = (res.body as { data: ScheduleView }).data;
    expect(s).toMatchObject({
      name: 'Morning report',
      activity: { id: activityId },
      timezone: 'Europe/Paris',
      is_active: true,
      skip_if_running: true,
      last_status: 'never_run',
      run_count: 0,
      failure_count: 0,
      last_run_at: null,
    });
    // 09:00 in Paris is 08:00 UTC in winter, 07:00 in summer.
    expect(new Date(s.next_run_at!).getUTCMinutes()).toBe(0);
    expect([7, 8]).toContain(new Date(s.next_run_at!).getUTCHours());
    expect(Date.parse(s.next_run_at!)).toBeGreaterThan(Date.now());

    const errorsOf = async (body: Record<string, unknown>) => {
      const r = await create(body);
      expect(r.status).toBe(400);
      return (r.body as { error: { details: { errors: string[] } } }).error.details.errors;
    };
    expect(await errorsOf({ name: 'x', activity: activityId, cron_expression: '* * * * * *' })).toEqual([expect.stringMatching(/5 standard fields/)]);
    expect(await errorsOf({ name: 'x', activity: activityId, cron_expression: '0 9 * * *', timezone: 'Mars/Base' })).toEqual([expect.stringMatching(/^timezone: /)]);
    expect(await errorsOf({ activity: activityId })).toEqual(['name: is required', 'cron_expression: is required']);
    expect((await create({ name: 'x', activity: activityId, cron_expression: '0 9 * * *' }, actors.bob.auth)).status).toBe(404);
  });

  it('answers 400, never 500, for input the database cannot hold: a long cron list, an out-of-range activity id, NUL or lone surrogates', async () => {
    const everyMinute = `${Array.from({ length: 60 }, (_, i) => i).join(',')} * * * *`;
    for (const body of [
      { name: 'x', activity: activityId, cron_expression: everyMinute },
      { name: 'x', activity: 99_999_999_999, cron_expression: '* * * * *' },
      { name: 'x\u0000y', activity: activityId, cron_expression: '* * * * *' },
      { name: 'x', activity: activityId, cron_expression: '* * * * *', inputs: { a: 'b\u0000' } },
      { name: 'x', activity: activityId, cron_expression: '* * * * *', inputs: { nested: ['\ud800'] } },
    ]) {
      const res = await create(body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: { status: 400, name: 'BadRequestError', details: { errors: [expect.any(String)] } } });
    }
    const s = ((await create({ name: 'Fine', activity: activityId, cron_expression: '0 9 * * *' })).body as { data: ScheduleView }).data;
    const put = await request(api.app)
      .put(`/api/workflow-schedules/${s.id}`)
      .set('authorization', actors.alice.auth)
      .send({ data: { cron_expression: everyMinute } });
    expect(put.status).toBe(400);
  });

  it('starts the workflow when due, as the owner with the schedule’s inputs, and sets the next run', async () => {
    const s = (await create({ name: 'Every five', activity: activityId, cron_expression: '*/5 * * * *', inputs: { document_url: 'https://files.example/a.pdf' } })).body as { data: ScheduleView };
    await makeDue(s.data.id);
    const started = await api.schedules.tick();
    expect(started).toHaveLength(1);
    const job = router.job(`wf_${started[0]}`)!;
    expect(job.payload.inputs).toEqual({ document_url: 'https://files.example/a.pdf' });
    expect(job.payload.user_id).toBe(actors.alice.id);
    const after = await read(s.data.id);
    expect(after).toMatchObject({ last_status: 'running', last_execution_id: started[0], run_count: 1 });
    expect(Date.parse(after.next_run_at!)).toBeGreaterThan(Date.now());
    expect(new Date(after.next_run_at!).getUTCMinutes() % 5).toBe(0);
    // Not due again: a second tick starts nothing.
    expect(await api.schedules.tick()).toEqual([]);

    // Due again while the run is active: skipped (skip_if_running), then the run completes and the status follows.
    await makeDue(s.data.id);
    expect(await api.schedules.tick()).toEqual([]);
    expect((await read(s.data.id)).run_count).toBe(1);
    await executions.postResult(started[0]!, { job_id: `wf_${started[0]}`, status: 'completed', sequence: 1, outputs: {} }).expect(200);
    await api.schedules.tick();
    expect(await read(s.data.id)).toMatchObject({ last_status: 'success', failure_count: 0 });
  });

  it('starts a due tick once when two processes tick at the same moment', async () => {
    const s = ((await create({ name: 'Raced', activity: activityId, cron_expression: '* * * * *', skip_if_running: false, inputs: { document_url: 'x' } })).body as { data: ScheduleView }).data;
    await makeDue(s.id);
    const [a, b] = await Promise.all([api.schedules.tick(), api.schedules.tick()]);
    expect([...a!, ...b!]).toHaveLength(1);
    expect((await read(s.id)).run_count).toBe(1);
  });

  it('starts alongside an active run when skip_if_running is false', async () => {
    const s = ((await create({ name: 'Overlapping', activity: activityId, cron_expression: '* * * * *', skip_if_running: false, inputs: { document_url: 'x' } })).body as { data: ScheduleView }).data;
    await makeDue(s.id);
    const first = await api.schedules.tick();
    await makeDue(s.id);
    const second = await api.schedules.tick();
    expect(first).toHaveLength(1);
    expect(second).toHaveLength(1);
    expect((await read(s.id)).run_count).toBe(2);
  });

  it('pauses a schedule whose next run cannot be computed, and still runs the others due with it', async () => {
    const broken = ((await create({ name: 'Broken', activity: activityId, cron_expression: '* * * * *', inputs: { document_url: 'x' } })).body as { data: ScheduleView }).data;
    const fine = ((await create({ name: 'Fine', activity: activityId, cron_expression: '* * * * *', inputs: { document_url: 'x' }, skip_if_running: false })).body as { data: ScheduleView }).data;
    // A time zone the database row holds but the cron library cannot use (written behind the API's back).
    await bed.database.query("UPDATE workflow_schedules SET timezone = 'Not/AZone', next_run_at = now() - interval '1 minute' WHERE id = $1", [broken.id]);
    await makeDue(fine.id);
    const started = await api.schedules.tick();
    expect(started).toHaveLength(1);
    expect(await read(fine.id)).toMatchObject({ last_status: 'running', run_count: 1 });
    const after = await read(broken.id);
    expect(after).toMatchObject({ is_active: false, next_run_at: null, last_status: 'failed' });
    expect(after.last_error).toMatch(/^paused: the next run cannot be computed/);
  });

  it('records a run that cannot start as failed, with the reason', async () => {
    const s = ((await create({ name: 'No inputs', activity: activityId, cron_expression: '* * * * *' })).body as { data: ScheduleView }).data;
    await makeDue(s.id);
    expect(await api.schedules.tick()).toEqual([]);
    const after = await read(s.id);
    expect(after).toMatchObject({ last_status: 'failed', failure_count: 1, run_count: 1 });
    expect(after.last_error).toMatch(/Invalid inputs/);
  });

  it('pauses with is_active false (no next run, never due), and is owner-only under both paths', async () => {
    const s = (
      (await create({ name: 'Paused', activity: activityId, cron_expression: '* * * * *', inputs: { document_url: 'x' } }, actors.alice.auth, '/api/schedules')).body as { data: ScheduleView }
    ).data;
    const paused = await request(api.app)
      .put(`/api/schedules/${s.id}`)
      .set('authorization', actors.alice.auth)
      .send({ data: { is_active: false } });
    expect(paused.status).toBe(200);
    expect((paused.body as { data: ScheduleView }).data).toMatchObject({ is_active: false, next_run_at: null });
    await bed.database.query("UPDATE workflow_schedules SET next_run_at = now() - interval '1 minute' WHERE id = $1", [s.id]);
    expect(await api.schedules.tick()).toEqual([]);
    expect((await request(api.app).get(`/api/workflow-schedules/${s.id}`).set('authorization', actors.bob.auth)).status).toBe(404);
    expect((await request(api.app).delete(`/api/workflow-schedules/${s.id}`).set('authorization', actors.bob.auth)).status).toBe(404);
    expect((await request(api.app).delete(`/api/workflow-schedules/${s.id}`).set('authorization', actors.alice.auth)).body).toEqual({ data: { id: s.id } });
  });
});
