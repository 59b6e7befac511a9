import request from 'supertest';
import type express from 'express';
import { RELAY_QUEUES, ResultMessage } from '@docflow/contracts';
import { Broker, ConsumerHandle } from '@docflow/messaging';
import { withPgTransaction } from '@docflow/persistence';
import { Metrics } from '@docflow/service-kit';
import { createTestVhost, TestVhost } from '@docflow/testing';
import { buildTestApi, openTestBed, recordingLogger, TestBed, testConfig } from '../../test-support/test-app';
import { createExecutionServices, type ExecutionResultOutcome as ApplyOutcome } from '../../workflows';
import { startResultsConsumer } from './results.consumer';
import { Actors, createActors } from '../../workflows/executions/test-support/actors';
import { executionEnv, ExecutionApi, ROUTER_KEY } from '../../workflows/executions/test-support/execution-api';
import { FakeRouter } from '../../test-support/fake-router';

let bed: TestBed;
let vhost: TestVhost;
let broker: Broker;
let consumer: ConsumerHandle;
let router: FakeRouter;
let app: express.Express;
let api: ExecutionApi;
let actors: Actors;

/** What the consumer applied, in order, and a way to wait for the next ones. */
const outcomes: ApplyOutcome[] = [];
let wake: (() => void) | undefined;

async function waitForOutcomes(count: number, timeoutMs = 10000): Promise<ApplyOutcome[]> {
  const deadline = Date.now() + timeoutMs;
  while (outcomes.length < count) {
    const left = deadline - Date.now();
    if (left <= 0) throw new Error(`expected ${count} applied results, got ${outcomes.length}`);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, left);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
  return outcomes.slice(0, count);
}

/** Publishes messages one after the other, each applied before the next is sent. */
async function deliver(...messages: Partial<ResultMessage>[]): Promise<ApplyOutcome[]> {
  const out: ApplyOutcome[] = [];
  for (const msg of messages) {
    const before = outcomes.length;
    await broker.publish(RELAY_QUEUES.publicApiResults, ResultMessage, msg as ResultMessage);
    out.push((await waitForOutcomes(before + 1))[before]!);
  }
  return out;
}

async function execution(id: number): Promise<Record<string, unknown>> {
  const res = await request(app).get(`/api/workflow-executions/${id}/status`).set('Authorization', actors.alice.auth);
  expect(res.status).toBe(200);
  return (res.body as { data: Record<string, unknown> }).data;
}

beforeAll(async () => {
  bed = await openTestBed();
  vhost = await createTestVhost('docflow_public_api_results');
  router = await FakeRouter.start(ROUTER_KEY);
  const config = testConfig(executionEnv(router.url));
  const logger = recordingLogger();
  const built = buildTestApi(bed, { config, logger });
  app = built.app;
  api = new ExecutionApi(app);
  actors = await createActors(bed.database);

  broker = Broker.connect({ url: vhost.url, logger, name: 'public-api-test' });
  const { results } = createExecutionServices({ config, database: bed.database, logger, metrics: new Metrics('public-api'), audit: built.audit });
  // The execution family's handler alone, each batch (one message included) in one transaction and multi-row statements, as the dispatcher runs a batch.
  consumer = await startResultsConsumer({
    broker,
    results: {
      applyBatch: async (msgs) => {
        const reports = await withPgTransaction(bed.database, (tx) => results.applyManyIn(tx, msgs));
        const out = reports.map((report) => report());
        outcomes.push(...out);
        wake?.();
        return out;
      },
    },
  });
  await broker.ready(15000);
});

afterAll(async () => {
  await consumer?.cancel(2000);
  await broker?.close(2000);
  await vhost?.drop();
  await router?.close();
  await bed?.close();
});

describe('results relayed on public_api_results_queue', () => {
  it('moves an execution from processing to completed, storing outputs and steps', async () => {
    const id = await api.started(actors.alice);
    const [progress, done] = await deliver(
      { job_id: `wf_${id}`, execution_id: id, status: 'processing', sequence: 1, task_states: { fetch: { status: 'running', started_at: '2030-01-01T00:00:00Z' } } },
      {
        job_id: `wf_${id}`,
        execution_id: id,
        status: 'completed',
        sequence: 2,
        outputs: { fetch: { data: { ok: true } } },
        task_states: { fetch: { status: 'completed', started_at: '2030-01-01T00:00:00Z', completed_at: '2030-01-01T00:00:02Z', cost: 0.25 } },
      },
    );
    expect(progress).toEqual({ outcome: 'applied', executionId: id, status: 'running' });
    expect(done).toEqual({ outcome: 'applied', executionId: id, status: 'completed' });
    expect(await execution(id)).toMatchObject({ status: 'completed', outputs: { fetch: { data: { ok: true } } }, task_states: { fetch: { status: 'completed' } } });
    const rows = (await bed.database.query('SELECT total_cost::float AS cost, completed_at FROM workflow_executions WHERE id = $1', [id])) as { cost: number; completed_at: Date | null }[];
    expect(rows[0]!.cost).toBe(0.25);
    expect(rows[0]!.completed_at).not.toBeNull();
  });

  it('ignores a late processing message after completed, and a duplicate completed message', async () => {
    const id = await api.started(actors.alice);
    const [done] = await deliver({ job_id: `wf_${id}`, status: 'completed', sequence: 3, outputs: { a: 1 }, task_states: { a: { status: 'completed', cost: 1 } } });
    expect(done!.outcome).toBe('applied');
    const before = (await bed.database.query('SELECT completed_at, updated_at, total_cost FROM workflow_executions WHERE id = $1', [id])) as Record<string, unknown>[];

    const [late, duplicate, laterSequence] = await deliver(
      { job_id: `wf_${id}`, status: 'processing', sequence: 2, task_states: { a: { status: 'running' } } },
      { job_id: `wf_${id}`, status: 'completed', sequence: 3, outputs: { a: 2 }, task_states: { a: { status: 'completed', cost: 5 } } },
      { job_id: `wf_${id}`, status: 'failed', sequence: 4, error: 'too late' },
    );
    expect([late, duplicate, laterSequence]).toEqual([
      { outcome: 'ignored', executionId: id, status: 'completed' },
      { outcome: 'ignored', executionId: id, status: 'completed' },
      { outcome: 'ignored', executionId: id, status: 'completed' },
    ]);
    const after = (await bed.database.query('SELECT completed_at, updated_at, total_cost FROM workflow_executions WHERE id = $1', [id])) as Record<string, unknown>[];
    expect(after).toEqual(before);
    expect(await execution(id)).toMatchObject({ status: 'completed', outputs: { a: 1 }, error: null, task_states: { a: { status: 'completed' } } });
  });

  it('treats a repeated or older sequence of a running job as a duplicate', async () => {
    const id = await api.started(actors.alice);
    const results = await deliver(
      { job_id: `wf_${id}`, status: 'processing', sequence: 5, task_states: { a: { status: 'completed' } } },
      { job_id: `wf_${id}`, status: 'processing', sequence: 5, task_states: { a: { status: 'failed' } } },
      { job_id: `wf_${id}`, status: 'processing', sequence: 4, task_states: { b: { status: 'running' } } },
      { job_id: `wf_${id}`, status: 'processing', sequence: 6, task_states: { b: { status: 'running' } } },
    );
    expect(results.map((r) => r.outcome)).toEqual(['applied', 'ignored', 'ignored', 'applied']);
    expect((await execution(id))['task_states']).toEqual({ a: { status: 'completed' }, b: { status: 'running' } });
  });

  it('records a pause from the queue, resumable with the token it carried', async () => {
    const id = await api.started(actors.alice);
    const [paused] = await deliver({
      job_id: `wf_${id}`,
      status: 'awaiting_user_input',
      sequence: 2,
      awaiting_node: 'approve',
      awaiting_input_schema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
      correlation_token: 'queue-token-7d1e0c5a9b',
    });
    expect(paused!.outcome).toBe('applied');
    expect(await execution(id)).toMatchObject({ status: 'awaiting_user_input', awaiting_node: 'approve', correlation_token: 'queue-token-7d1e0c5a9b' });
    const resumed = await api.resume(actors.alice, id, { correlation_token: 'queue-token-7d1e0c5a9b', payload: { ok: true } });
    expect(resumed.status).toBe(200);
    expect(router.job(`wf_${id}_resume_1`)).toBeDefined();
  });

  it('acks results of unknown executions and of jobs that are not workflow runs', async () => {
    const results = await deliver({ job_id: 'wf_987654', status: 'completed' }, { job_id: 'extract_42', status: 'completed' });
    expect(results).toEqual([{ outcome: 'unknown_execution', executionId: 987654 }, { outcome: 'not_a_workflow_job' }]);
    const stats = await broker.checkQueue(RELAY_QUEUES.publicApiResults);
    expect(stats.messageCount).toBe(0);
  });

  it('applies a burst that arrives together, each execution to its last state, waking a long poll', async () => {
    const ids = [await api.started(actors.alice), await api.started(actors.alice)];
    const waiting = request(app).get(`/api/workflow-executions/${ids[1]}/status?wait=10`).set('Authorization', actors.alice.auth);
    const polled = new Promise<request.Response>((resolve, reject) => waiting.then(resolve, reject));
    const before = outcomes.length;
    const burst: Partial<ResultMessage>[] = ids.flatMap((id) => [
      { job_id: `wf_${id}`, execution_id: id, status: 'processing' as const, sequence: 1, task_states: { a: { status: 'running' } } },
      { job_id: `wf_${id}`, execution_id: id, status: 'completed' as const, sequence: 2, outputs: { id }, task_states: { a: { status: 'completed' } } },
    ]);
    await Promise.all(burst.map((m) => broker.publish(RELAY_QUEUES.publicApiResults, ResultMessage, m as ResultMessage)));
    const got = (await waitForOutcomes(before + burst.length)).slice(before);
    expect(got.map((o) => o.outcome)).toEqual(Array(burst.length).fill('applied'));
    for (const id of ids) expect(await execution(id)).toMatchObject({ status: 'completed', outputs: { id }, task_states: { a: { status: 'completed' } } });
    const res = await polled;
    expect(res.status).toBe(200);
    expect((res.body as { data: { status: string } }).data.status).toBe('completed');
  });
});
