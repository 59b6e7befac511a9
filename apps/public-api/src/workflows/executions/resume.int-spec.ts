import request from 'supertest';
import type express from 'express';
import { buildTestApi, LogLine, openTestBed, recordingLogger, TEST_JWT_SECRET, TestBed, testConfig } from '../../test-support/test-app';
import { signPollingToken } from './polling-token';
import { Actors, createActors } from './test-support/actors';
import { APPROVAL_SCHEMA, ErrorBody, executionEnv, ExecutionApi, ROUTER_KEY } from './test-support/execution-api';
import { FakeRouter } from '../../test-support/fake-router';
import { WorkflowExecutionsRepository } from './workflow-executions.repository';

let bed: TestBed;
let router: FakeRouter;
let app: express.Express;
let sweep: () => Promise<number>;
let api: ExecutionApi;
let actors: Actors;
const lines: LogLine[] = [];

interface StatusBody {
  data: {
    status: string;
    awaiting_node: string | null;
    correlation_token: string | null;
    awaiting_input_schema: Record<string, unknown> | null;
    awaiting_since: string | null;
  };
}

let tokenSeq = 0;

/** A started execution that a processor paused at node `approve`; returns its id and the token the processor issued. */
async function paused(): Promise<{ id: number; token: string }> {
  const id = await api.started(actors.alice);
  tokenSeq += 1;
  const token = `corr-${tokenSeq}-f3a9c1d27be54e0c8a61d2f0b7e4c593`;
  await api
    .postResult(id, {
      job_id: `wf_${id}`,
      status: 'awaiting_user_input',
      sequence: 3,
      awaiting_node: 'approve',
      awaiting_input_schema: APPROVAL_SCHEMA,
      correlation_token: token,
      awaiting_since: '2030-01-01T10:00:00.000Z',
      outputs: { fetch: { data: { ok: true } } },
      task_states: { fetch: { status: 'completed', result: { data: { ok: true } } }, approve: { status: 'running', task_type: 'user_input_task' } },
    })
    .expect(200);
  return { id, token };
}

beforeAll(async () => {
  bed = await openTestBed();
  router = await FakeRouter.start(ROUTER_KEY);
  const built = buildTestApi(bed, { config: testConfig(executionEnv(router.url)), logger: recordingLogger(lines) });
  app = built.app;
  sweep = built.sweepPendingWebhookStarts;
  api = new ExecutionApi(app);
  actors = await createActors(bed.database);
});

afterAll(async () => {
  await router?.close();
  await bed?.close();
});

describe('an execution awaiting user input', () => {
  it('shows what it awaits, with the correlation token for its owner only', async () => {
    const { id, token } = await paused();
    const owner = (await api.status(actors.alice, id)).body as StatusBody;
    expect(owner.data).toMatchObject({
      status: 'awaiting_user_input',
      awaiting_node: 'approve',
      correlation_token: token,
      awaiting_input_schema: APPROVAL_SCHEMA,
      awaiting_since: '2030-01-01T10:00:00.000Z',
    });
    const admin = (await api.status(actors.admin, id)).body as StatusBody;
    expect(admin.data).toMatchObject({ status: 'awaiting_user_input', awaiting_node: 'approve', correlation_token: null });
    expect((await api.status(actors.bob, id)).status).toBe(404);
    const polling = signPollingToken({ executionId: id, userId: actors.alice.id }, TEST_JWT_SECRET);
    const viaPolling = await request(app).get(`/api/workflow-executions/${id}/status`).set('Authorization', `Bearer ${polling}`);
    expect((viaPolling.body as StatusBody).data).toMatchObject({ status: 'awaiting_user_input', correlation_token: null });

    // Stored as a hash and a sealed copy, never in clear.
    const rows = (await bed.database.query('SELECT row_to_json(e)::text AS json, correlation_token_hash FROM workflow_executions e WHERE id = $1', [id])) as {
      json: string;
      correlation_token_hash: string;
    }[];
    expect(rows[0]!.json).not.toContain(token);
    expect(rows[0]!.correlation_token_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('refuses a wrong token (400), a payload that breaks the schema (400) and a missing payload, without using up the token', async () => {
    const { id, token } = await paused();
    const wrong = await api.resume(actors.alice, id, { correlation_token: `${token}x`, payload: { approved: true } });
    expect(wrong.status).toBe(400);
    expect((wrong.body as ErrorBody).error.message).toBe('Invalid correlation token');

    const bad = await api.resume(actors.alice, id, { correlation_token: token, payload: { approved: 'yes', extra: 1 } });
    expect(bad.status).toBe(400);
    expect((bad.body as ErrorBody).error.message).toBe('Invalid payload');
    expect((bad.body as ErrorBody).error.details.errors?.join('\n')).toMatch(/payload\.approved/);

    expect((await api.resume(actors.alice, id, { correlation_token: token })).status).toBe(400);
    expect((await api.resume(actors.bob, id, { correlation_token: token, payload: { approved: true } })).status).toBe(404);
    expect(((await api.status(actors.alice, id)).body as StatusBody).data).toMatchObject({ status: 'awaiting_user_input', correlation_token: token });
    expect(router.job(`wf_${id}_resume_1`)).toBeUndefined();
  });

  it('resumes once with the right token: job wf_<id>_resume_1 carries the payload for the waiting node; a second use is refused', async () => {
    const { id, token } = await paused();
    const res = await api.resume(actors.alice, id, { correlation_token: token, payload: { approved: true, comment: 'fine' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { id, status: 'running', job_id: `wf_${id}_resume_1` } });

    const job = router.job(`wf_${id}_resume_1`)!;
    expect(job).toMatchObject({ job_type: 'task_based_workflow' });
    expect(JSON.stringify(job)).not.toContain(actors.alice.token);
    expect(job.payload).toMatchObject({
      execution_id: id,
      user_id: actors.alice.id,
      inputs: { document_url: 'https://files.example/a.pdf' },
      resume: { node_id: 'approve', payload: { approved: true, comment: 'fine' }, outputs: { fetch: { data: { ok: true } } } },
    });

    const after = (await api.status(actors.alice, id)).body as StatusBody;
    expect(after.data).toMatchObject({ status: 'running', awaiting_node: null, correlation_token: null });
    const again = await api.resume(actors.alice, id, { correlation_token: token, payload: { approved: false } });
    expect(again.status).toBe(409);
    const stored = (await bed.database.query('SELECT resume_count, job_id, correlation_token_hash, correlation_token_sealed FROM workflow_executions WHERE id = $1', [id])) as Record<
      string,
      unknown
    >[];
    expect(stored[0]).toEqual({ resume_count: 1, job_id: `wf_${id}_resume_1`, correlation_token_hash: null, correlation_token_sealed: null });
  });

  it('lets exactly one of two concurrent resumes with the right token through', async () => {
    const { id, token } = await paused();
    const [a, b] = await Promise.all([
      api.resume(actors.alice, id, { correlation_token: token, payload: { approved: true } }),
      api.resume(actors.alice, id, { correlation_token: token, payload: { approved: false } }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    expect(router.jobs.filter((j) => j.job_id.startsWith(`wf_${id}_resume_`))).toHaveLength(1);
  });

  it('ignores a stale awaiting message of the job before the resume, then applies the resumed job’s results', async () => {
    const { id, token } = await paused();
    await api.resume(actors.alice, id, { correlation_token: token, payload: { approved: true } }).expect(200);
    const stale = await api.postResult(id, { job_id: `wf_${id}`, status: 'awaiting_user_input', sequence: 9, awaiting_node: 'approve', correlation_token: 'old' });
    expect(stale.body).toEqual({ data: { id, applied: false, status: 'running' } });
    // The resumed job numbers its messages from 1 again.
    const progress = await api.postResult(id, { job_id: `wf_${id}_resume_1`, status: 'processing', sequence: 1, task_states: { approve: { status: 'completed' } } });
    expect(progress.body).toEqual({ data: { id, applied: true, status: 'running' } });
    const done = await api.postResult(id, { job_id: `wf_${id}_resume_1`, status: 'completed', sequence: 2, outputs: { approve: { approved: true } } });
    expect(done.body).toEqual({ data: { id, applied: true, status: 'completed' } });
    const read = (await request(app).get(`/api/workflow-executions/${id}`).set('Authorization', actors.alice.auth)).body as { data: Record<string, unknown> };
    expect(read.data).toMatchObject({ status: 'completed', outputs: { fetch: { data: { ok: true } }, approve: { approved: true } } });
  });

  it('stays awaiting, token intact, when the router cannot take the resume (503)', async () => {
    const { id, token } = await paused();
    router.mode = 'broker_down';
    try {
      expect((await api.resume(actors.alice, id, { correlation_token: token, payload: { approved: true } })).status).toBe(503);
    } finally {
      router.mode = 'queue';
    }
    expect(((await api.status(actors.alice, id)).body as StatusBody).data).toMatchObject({ status: 'awaiting_user_input', awaiting_node: 'approve', correlation_token: token });
    const ok = await api.resume(actors.alice, id, { correlation_token: token, payload: { approved: true } });
    expect(ok.body).toEqual({ data: { id, status: 'running', job_id: `wf_${id}_resume_1` } });
  });

  it('submits once, by the sweep, the job of a resume whose process died between its commit and the router call; the run completes', async () => {
    const { id } = await paused();
    // The resume's commit alone, as the route makes it before the router call (the process is killed in between).
    const repo = new WorkflowExecutionsRepository(bed.database);
    const at = new Date(Date.now() - 2 * 60 * 1000);
    const committed = await repo.resume(id, actors.alice.id, async (locked) => ({
      jobId: `wf_${id}_resume_${locked.resumeCount + 1}`,
      at,
      deadlineAt: null,
      payload: { approved: true, comment: 'late' },
    }));
    expect(committed?.revert.jobId).toBe(`wf_${id}_resume_1`);
    // Another execution resumed through the route two minutes ago whose job has reported since: not submitted again.
    const other = await paused();
    await api.resume(actors.alice, other.id, { correlation_token: other.token, payload: { approved: false } }).expect(200);
    await bed.database.query("UPDATE workflow_executions SET resumed_at = now() - interval '2 minutes', last_progress_at = now() - interval '2 minutes' WHERE id = $1", [other.id]);
    await api.postResult(other.id, { job_id: `wf_${other.id}_resume_1`, status: 'processing', sequence: 1, task_states: { approve: { status: 'completed' } } }).expect(200);
    const jobsBefore = router.jobs.length;

    expect(router.job(`wf_${id}_resume_1`)).toBeUndefined();
    expect(await sweep()).toBe(1);
    const resubmitted = router.jobs.slice(jobsBefore);
    expect(resubmitted.map((j) => j.job_id)).toEqual([`wf_${id}_resume_1`]);
    expect(resubmitted[0]!.payload).toMatchObject({
      execution_id: id,
      user_id: actors.alice.id,
      inputs: { document_url: 'https://files.example/a.pdf' },
      resume: { node_id: 'approve', payload: { approved: true, comment: 'late' }, outputs: { fetch: { data: { ok: true } } }, task_states: { fetch: { status: 'completed' } } },
    });
    // Once per resume: a job merely waiting behind a long queue is not published again on every sweep.
    expect(await sweep()).toBe(0);
    expect(router.jobs.filter((j) => j.job_id === `wf_${id}_resume_1`)).toHaveLength(1);

    await api.postResult(id, { job_id: `wf_${id}_resume_1`, status: 'completed', sequence: 1, outputs: { approve: { approved: true } } }).expect(200);
    expect(((await api.status(actors.alice, id)).body as StatusBody).data.status).toBe('completed');
    expect(lines.some((l) => l.message === 'resumed execution running without a result; its job submitted again')).toBe(true);
  });

  it('never logs a correlation token', () => {
    const logged = JSON.stringify(lines);
    expect(logged).not.toMatch(/corr-\d+-f3a9c1d27be54e0c8a61d2f0b7e4c593/);
    expect(lines.some((l) => l.message === 'execution result applied')).toBe(true);
  });
});
