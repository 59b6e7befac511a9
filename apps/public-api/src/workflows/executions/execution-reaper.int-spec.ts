import type express from 'express';
import { buildTestApp, LogLine, openTestBed, recordingLogger, TestBed, testConfig } from '../../test-support/test-app';
import { startExecutionReaper } from './execution-reaper';
import { Actors, createActors } from './test-support/actors';
import { executionEnv, ExecutionApi, ROUTER_KEY } from './test-support/execution-api';
import { FakeRouter } from '../../test-support/fake-router';
import { WorkflowExecutionsRepository } from './workflow-executions.repository';

let bed: TestBed;
let router: FakeRouter;
let app: express.Express;
let api: ExecutionApi;
let actors: Actors;
let repo: WorkflowExecutionsRepository;

interface Row {
  status: string;
  error: string | null;
  error_type: string | null;
  completed_at: Date | null;
}

async function row(id: number): Promise<Row> {
  const rows = (await bed.database.query('SELECT status, error, error_type, completed_at FROM workflow_executions WHERE id = $1', [id])) as Row[];
  return rows[0]!;
}

/** Pretends the processor last reported `secondsAgo` seconds ago. */
async function idleFor(id: number, secondsAgo: number): Promise<void> {
  await bed.database.query('UPDATE workflow_executions SET last_progress_at = now() - make_interval(secs => $2) WHERE id = $1', [id, secondsAgo]);
}

beforeAll(async () => {
  bed = await openTestBed();
  router = await FakeRouter.start(ROUTER_KEY);
  app = buildTestApp(bed, { config: testConfig(executionEnv(router.url)) });
  api = new ExecutionApi(app);
  actors = await createActors(bed.database);
  repo = new WorkflowExecutionsRepository(bed.database);
});

afterAll(async () => {
  await router?.close();
  await bed?.close();
});

describe('the execution reaper', () => {
  it('fails running executions with no progress for longer than the lease, and nothing else', async () => {
    const silent = await api.started(actors.alice);
    const lively = await api.started(actors.alice);
    const queued = await api.createExecution(actors.alice, await api.createActivity(actors.alice));
    const paused = await api.started(actors.alice);
    await api.postResult(paused, { job_id: `wf_${paused}`, status: 'awaiting_user_input', awaiting_node: 'n', correlation_token: 't' }).expect(200);
    await idleFor(silent, 30);
    await idleFor(paused, 3600);

    const lines: LogLine[] = [];
    const reaper = startExecutionReaper({ repo, logger: recordingLogger(lines), leaseSeconds: 10, intervalSeconds: 3600 });
    try {
      expect(await reaper.runOnce()).toEqual([silent]);
    } finally {
      await reaper.stop();
    }
    const failed = await row(silent);
    expect(failed).toMatchObject({ status: 'failed', error_type: 'timeout' });
    expect(failed.error).toMatch(/^Execution lease expired: no progress reported by a workflow processor for (30|31) s$/);
    expect(failed.completed_at).not.toBeNull();
    expect((await row(lively)).status).toBe('running');
    expect((await row(queued)).status).toBe('queued');
    expect((await row(paused)).status).toBe('awaiting_user_input');
    expect(lines).toEqual([expect.objectContaining({ level: 'warn', message: 'execution lease expired; marked failed', meta: expect.objectContaining({ executionId: silent }) })]);

    // A result arriving after the reaper failed it changes nothing.
    const late = await api.postResult(silent, { job_id: `wf_${silent}`, status: 'completed', outputs: {} });
    expect(late.body).toEqual({ data: { id: silent, applied: false, status: 'failed' } });
  });

  it('fails an execution 60 s past its deadline even when the lease has not expired', async () => {
    const id = await api.started(actors.alice);
    const recent = await api.started(actors.alice);
    await bed.database.query("UPDATE workflow_executions SET deadline_at = now() - interval '61 seconds' WHERE id = $1", [id]);
    await bed.database.query("UPDATE workflow_executions SET deadline_at = now() - interval '30 seconds' WHERE id = $1", [recent]);
    expect(await repo.reapExpired(900)).toEqual([{ id, idleSeconds: expect.any(Number) as number }]);
    expect(await row(id)).toMatchObject({ status: 'failed', error_type: 'timeout' });
    expect((await row(recent)).status).toBe('running');
  });

  it('fails each expired execution once when replicas reap together', async () => {
    const ids = [await api.started(actors.bob), await api.started(actors.bob), await api.started(actors.bob)];
    for (const id of ids) await idleFor(id, 120);
    const passes = await Promise.all([repo.reapExpired(60), repo.reapExpired(60), repo.reapExpired(60)]);
    const reaped = passes
      .flat()
      .map((r) => r.id)
      .filter((id) => ids.includes(id));
    expect(reaped.sort()).toEqual([...ids].sort());
  });

  it('runs on its interval with a tiny lease', async () => {
    const id = await api.started(actors.alice);
    await idleFor(id, 5);
    let reaper: ReturnType<typeof startExecutionReaper> | undefined;
    const failedIds = await new Promise<number[]>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no reaper pass within 10 s')), 10000);
      reaper = startExecutionReaper({
        repo,
        logger: recordingLogger(),
        leaseSeconds: 1,
        intervalSeconds: 1,
        onPass: (ids) => {
          clearTimeout(timer);
          resolve(ids);
        },
      });
    }).finally(() => reaper?.stop());
    expect(failedIds).toContain(id);
    expect(await row(id)).toMatchObject({ status: 'failed', error_type: 'timeout' });
  });
});
