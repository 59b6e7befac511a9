import { RELAY_QUEUES, ResultMessage } from '@docflow/contracts';
import { Broker, ConsumerHandle } from '@docflow/messaging';
import { withPgTransaction } from '@docflow/persistence';
import { Metrics } from '@docflow/service-kit';
import { createTestVhost, TestVhost } from '@docflow/testing';
import { buildTestApi, openTestBed, recordingLogger, TestBed, testConfig } from '../../test-support/test-app';
import { FakeRouter } from '../../test-support/fake-router';
import { createExecutionServices } from '../../workflows';
import { Actors, createActors } from '../../workflows/executions/test-support/actors';
import { executionEnv, ExecutionApi, ROUTER_KEY } from '../../workflows/executions/test-support/execution-api';
import { type DispatchOutcome, ResultDispatcher } from './result-dispatcher';
import { startResultsConsumer } from './results.consumer';

let bed: TestBed;
let vhost: TestVhost;
let broker: Broker;
let consumer: ConsumerHandle;
let router: FakeRouter;
let actors: Actors;
let dispatcher: ResultDispatcher;
let api: ExecutionApi;

const outcomes: DispatchOutcome[] = [];
let wake: (() => void) | undefined;

async function waitForOutcomes(count: number, timeoutMs = 10000): Promise<DispatchOutcome[]> {
  const deadline = Date.now() + timeoutMs;
  while (outcomes.length < count) {
    const left = deadline - Date.now();
    if (left <= 0) throw new Error(`expected ${count} dispatched results, got ${outcomes.length}`);
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

/** Publishes each message (with the message id a processor gives it), waiting until it was applied. */
async function deliver(...messages: ResultMessage[]): Promise<DispatchOutcome[]> {
  const out: DispatchOutcome[] = [];
  for (const msg of messages) {
    const before = outcomes.length;
    await broker.publish(RELAY_QUEUES.publicApiResults, ResultMessage, msg, { messageId: `${msg.job_id}:${msg.status}:${msg.sequence ?? 0}` });
    out.push((await waitForOutcomes(before + 1))[before]!);
  }
  return out;
}

async function recordJob(jobId: string): Promise<void> {
  await bed.database.query(`INSERT INTO classification_jobs (job_id, user_id, collection_id, job_type) VALUES ($1, $2, 1, 'classification')`, [jobId, actors.alice.id]);
}

async function jobRow(jobId: string): Promise<Record<string, unknown> | undefined> {
  const rows = (await bed.database.query('SELECT status, outputs, error, last_sequence, updated_at, completed_at FROM classification_jobs WHERE job_id = $1', [jobId])) as Record<string, unknown>[];
  return rows[0];
}

beforeAll(async () => {
  bed = await openTestBed();
  vhost = await createTestVhost('docflow_public_api_dispatch');
  router = await FakeRouter.start(ROUTER_KEY);
  const config = testConfig(executionEnv(router.url));
  const logger = recordingLogger();
  const built = buildTestApi(bed, { config, logger });
  actors = await createActors(bed.database);
  api = new ExecutionApi(built.app);
  broker = Broker.connect({ url: vhost.url, logger, name: 'public-api-dispatch-test' });
  const { results } = createExecutionServices({ config, database: bed.database, logger, metrics: new Metrics('public-api'), audit: built.audit });
  dispatcher = new ResultDispatcher({ workflow: results, extraction: built.documents.extractionResults }, logger, (work) => withPgTransaction(bed.database, work));
  consumer = await startResultsConsumer({
    broker,
    results: {
      applyBatch: async (msgs) => {
        const out = await dispatcher.applyBatch(msgs);
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

describe('one results consumer, a handler per job family', () => {
  it('writes an extraction job’s results into its row, in order', async () => {
    await recordJob('cls_dispatch_1');
    const [progress, done] = await deliver(
      { job_id: 'cls_dispatch_1', status: 'processing', outputs: {}, sequence: 1 },
      { job_id: 'cls_dispatch_1', status: 'completed', outputs: { extraction_result: { document_type: 'invoice' } }, sequence: 2 },
    );
    expect(progress).toEqual({ family: 'extraction', result: { outcome: 'applied', jobId: 'cls_dispatch_1', status: 'processing' } });
    expect(done).toEqual({ family: 'extraction', result: { outcome: 'applied', jobId: 'cls_dispatch_1', status: 'completed' } });
    expect(await jobRow('cls_dispatch_1')).toMatchObject({ status: 'completed', outputs: { extraction_result: { document_type: 'invoice' } }, error: null, last_sequence: '2' });
  });

  it('gives a duplicate delivery one effect, and a result for a finished job none', async () => {
    await recordJob('ocr_dispatch_2');
    const failed: ResultMessage = { job_id: 'ocr_dispatch_2', status: 'failed', error: 'no text', outputs: {}, sequence: 5 };
    const [first] = await deliver(failed);
    expect(first).toEqual({ family: 'extraction', result: { outcome: 'applied', jobId: 'ocr_dispatch_2', status: 'failed' } });
    const before = await jobRow('ocr_dispatch_2');
    const [again, late, other] = await deliver(
      failed,
      { job_id: 'ocr_dispatch_2', status: 'processing', sequence: 4 },
      { job_id: 'ocr_dispatch_2', status: 'completed', outputs: { x: 1 }, sequence: 6 },
    );
    expect([again, late, other]).toEqual(Array(3).fill({ family: 'extraction', result: { outcome: 'ignored', jobId: 'ocr_dispatch_2', status: 'failed' } }));
    expect(await jobRow('ocr_dispatch_2')).toEqual(before);
    expect(before).toMatchObject({ status: 'failed', error: 'no text' });
  });

  it('acks results for unknown jobs of each family and for jobs of no family, changing nothing', async () => {
    const count = async () => ((await bed.database.query('SELECT count(*)::int AS n FROM classification_jobs')) as { n: number }[])[0]!.n;
    const rows = await count();
    const results = await deliver({ job_id: 'ext_unknown', status: 'completed', outputs: {} }, { job_id: 'wf_987654', status: 'completed' }, { job_id: 'extract_42', status: 'completed' });
    expect(results).toEqual([
      { family: 'extraction', result: { outcome: 'unknown_job', jobId: 'ext_unknown' } },
      { family: 'workflow', result: { outcome: 'unknown_execution', executionId: 987654 } },
      { family: null, result: { outcome: 'unknown_job', jobId: 'extract_42' } },
    ]);
    expect(await count()).toBe(rows);
    expect((await broker.checkQueue(RELAY_QUEUES.publicApiResults)).messageCount).toBe(0);
  });
});

describe('a batch of results in one transaction', () => {
  it('applies every family in order, a duplicate in the same batch once, and answers in the batch order', async () => {
    await recordJob('cls_batch_1');
    const id = await api.started(actors.alice);
    const done: ResultMessage = { job_id: `wf_${id}`, execution_id: id, status: 'completed', sequence: 2, outputs: { r: 1 }, task_states: { a: { status: 'completed', cost: 0.5 } } };
    const out = await dispatcher.applyBatch([
      { job_id: 'cls_batch_1', status: 'completed', outputs: { k: 'v' }, sequence: 9 },
      { job_id: `wf_${id}`, execution_id: id, status: 'processing', sequence: 1, task_states: { a: { status: 'running' } } },
      done,
      done,
      { job_id: 'extract_43', status: 'completed' },
      { job_id: 'cls_batch_1', status: 'processing', sequence: 8 },
    ]);
    expect(out).toEqual([
      { family: 'extraction', result: { outcome: 'applied', jobId: 'cls_batch_1', status: 'completed' } },
      { family: 'workflow', result: { outcome: 'applied', executionId: id, status: 'running' } },
      { family: 'workflow', result: { outcome: 'applied', executionId: id, status: 'completed' } },
      { family: 'workflow', result: { outcome: 'ignored', executionId: id, status: 'completed' } },
      { family: null, result: { outcome: 'unknown_job', jobId: 'extract_43' } },
      { family: 'extraction', result: { outcome: 'ignored', jobId: 'cls_batch_1', status: 'completed' } },
    ]);
    expect(await jobRow('cls_batch_1')).toMatchObject({ status: 'completed', outputs: { k: 'v' }, last_sequence: '9' });
    const rows = (await bed.database.query('SELECT status, outputs, total_cost::float AS cost FROM workflow_executions WHERE id = $1', [id])) as Record<string, unknown>[];
    expect(rows[0]).toEqual({ status: 'completed', outputs: { r: 1 }, cost: 0.5 });
  });

  it('changes nothing when the batch fails: its transaction rolls back', async () => {
    await recordJob('cls_batch_2');
    const id = await api.started(actors.alice);
    const failing = new ResultDispatcher(
      {
        workflow: createExecutionServices({
          config: testConfig(executionEnv(router.url)),
          database: bed.database,
          logger: recordingLogger(),
          metrics: new Metrics('public-api'),
          audit: { record: () => undefined } as never,
        }).results,
        extraction: {
          apply: async () => ({ outcome: 'unknown_job', jobId: '' }),
          applyIn: async () => {
            throw new Error('disk full');
          },
        },
      },
      recordingLogger(),
      (work) => withPgTransaction(bed.database, work),
    );
    await expect(
      failing.applyBatch([
        { job_id: `wf_${id}`, execution_id: id, status: 'completed', sequence: 1, outputs: { r: 2 } },
        { job_id: 'cls_batch_2', status: 'completed', outputs: {}, sequence: 1 },
      ]),
    ).rejects.toThrow('disk full');
    expect(await execution(id)).toMatchObject({ status: 'running' });
  });

  it('applies results of several executions, one each and without costs, in one message: effects, steps, stale and unknown ones as a transaction would', async () => {
    const [a, b, c] = [await api.started(actors.alice), await api.started(actors.alice), await api.started(actors.alice)];
    const steps = { n1: { status: 'completed' as const, label: 'First', started_at: '2026-01-01T00:00:00.000Z', completed_at: '2026-01-01T00:00:02.000Z' } };
    const batch: ResultMessage[] = [
      { job_id: `wf_${b}`, execution_id: b, status: 'completed', sequence: 3, outputs: { it: "b's \\ 'quoted' \u00e9" }, task_states: steps },
      { job_id: `wf_${a}`, execution_id: a, status: 'processing', sequence: 1, task_states: { n1: { status: 'running', label: 'First' } } },
      { job_id: `wf_${c}`, execution_id: c, status: 'failed', sequence: 2, error: 'boom', error_type: 'node_error', failed_node: 'n1' },
      { job_id: 'wf_987656', execution_id: 987656, status: 'completed', sequence: 1 },
    ];
    const out = await dispatcher.applyBatch(batch);
    expect(out).toEqual([
      { family: 'workflow', result: { outcome: 'applied', executionId: b, status: 'completed' } },
      { family: 'workflow', result: { outcome: 'applied', executionId: a, status: 'running' } },
      { family: 'workflow', result: { outcome: 'applied', executionId: c, status: 'failed' } },
      { family: 'workflow', result: { outcome: 'unknown_execution', executionId: 987656 } },
    ]);
    expect(await execution(b)).toEqual({ status: 'completed', outputs: { it: "b's \\ 'quoted' \u00e9" } });
    expect(await execution(a)).toMatchObject({ status: 'running' });
    const rows = (await bed.database.query(
      'SELECT e.error, e.failed_node, s.step_name, s.status, s.duration_seconds::float AS secs FROM workflow_executions e LEFT JOIN workflow_execution_steps s ON s.execution_id = e.id WHERE e.id = ANY($1) ORDER BY e.id',
      [[a, b, c]],
    )) as Record<string, unknown>[];
    expect(rows).toEqual([
      { error: null, failed_node: null, step_name: 'First', status: 'running', secs: null },
      { error: null, failed_node: null, step_name: 'First', status: 'completed', secs: 2 },
      { error: 'boom', failed_node: 'n1', step_name: null, status: null, secs: null },
    ]);
    // The same batch delivered again has no effect.
    const again = await dispatcher.applyBatch(batch);
    expect(again.map((o) => (o.family === 'workflow' ? o.result.outcome : o.family))).toEqual(['ignored', 'ignored', 'ignored', 'unknown_execution']);
    expect(await execution(b)).toEqual({ status: 'completed', outputs: { it: "b's \\ 'quoted' \u00e9" } });
  });

  it('applies nothing of a batch sent in one message when a row of it is refused', async () => {
    const [a, b] = [await api.started(actors.alice), await api.started(actors.alice)];
    await expect(
      dispatcher.applyBatch([
        { job_id: `wf_${a}`, execution_id: a, status: 'completed', sequence: 1, outputs: { fine: true } },
        // PostgreSQL refuses NUL in jsonb text: the message's one transaction rolls back, a's result included.
        { job_id: `wf_${b}`, execution_id: b, status: 'completed', sequence: 1, outputs: { bad: 'a\u0000b' } },
      ]),
    ).rejects.toThrow();
    expect(await execution(a)).toEqual({ status: 'running', outputs: null });
    expect(await execution(b)).toEqual({ status: 'running', outputs: null });
    // The connection still runs the prepared statement afterwards (it is asked what it holds after an error).
    const out = await dispatcher.applyBatch([
      { job_id: `wf_${a}`, execution_id: a, status: 'completed', sequence: 1, outputs: { fine: true } },
      { job_id: `wf_${b}`, execution_id: b, status: 'completed', sequence: 1, outputs: { fine: 2 } },
    ]);
    expect(out.map((o) => (o.family === 'workflow' ? o.result.outcome : o.family))).toEqual(['applied', 'applied']);
    expect(await execution(b)).toEqual({ status: 'completed', outputs: { fine: 2 } });
  });

  it('applies what arrives on the queue together, acking every message, each with its effect', async () => {
    const ids = [await api.started(actors.alice), await api.started(actors.alice), await api.started(actors.alice)];
    const before = outcomes.length;
    const burst: ResultMessage[] = ids.flatMap((id, i) => [
      { job_id: `wf_${id}`, execution_id: id, status: 'processing' as const, sequence: 1 },
      { job_id: `wf_${id}`, execution_id: id, status: 'completed' as const, sequence: 2, outputs: { i } },
    ]);
    await Promise.all(burst.map((m) => broker.publish(RELAY_QUEUES.publicApiResults, ResultMessage, m, { messageId: `${m.job_id}:${m.status}:${m.sequence ?? 0}` })));
    const got = (await waitForOutcomes(before + burst.length)).slice(before);
    expect(got.filter((o) => o.result.outcome === 'applied')).toHaveLength(burst.length);
    for (const [i, id] of ids.entries()) expect(await execution(id)).toMatchObject({ status: 'completed', outputs: { i } });
    expect((await broker.checkQueue(RELAY_QUEUES.publicApiResults)).messageCount).toBe(0);
  });
});

describe('two processes applying batches with the same executions in opposite orders', () => {
  /** Backends of this test's database waiting for a row lock. */
  async function lockWaiters(): Promise<number> {
    const rows = (await bed.database.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")) as { n: number }[];
    return rows[0]!.n;
  }

  async function untilLockWaiters(n: number): Promise<void> {
    const deadline = Date.now() + 10_000;
    while ((await lockWaiters()) < n) {
      if (Date.now() > deadline) throw new Error(`expected ${n} backends waiting for a lock, saw ${await lockWaiters()}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  it('both commit (no deadlock), each result applied once', async () => {
    const [a, b, x] = [await api.started(actors.alice), await api.started(actors.alice), await api.started(actors.alice)];
    const msg = (id: number, status: 'processing' | 'completed', sequence: number): ResultMessage => ({
      job_id: `wf_${id}`,
      execution_id: id,
      status,
      sequence,
      ...(status === 'completed' ? { outputs: { by: sequence } } : {}),
    });
    // Another transaction holds x, so the first batch stops on x having reached a (and, with one lock order, b);
    // the second batch, in the opposite order, then waits for a. Without one order the first would hold a
    // while the second held b, and each would then wait for the other.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const holding = new Promise<void>((resolve) => (locked = resolve));
    const holder = withPgTransaction(bed.database, async (tx) => {
      await tx.query('SELECT id FROM workflow_executions WHERE id = $1 FOR UPDATE', [x]);
      locked();
      await held;
    });
    await holding;
    const first = dispatcher.applyBatch([msg(a, 'processing', 1), msg(x, 'processing', 1), msg(b, 'completed', 2)]);
    await untilLockWaiters(1);
    const second = dispatcher.applyBatch([msg(b, 'completed', 2), msg(a, 'completed', 2)]);
    await untilLockWaiters(2);
    release();
    await holder;
    const [one, two] = await Promise.all([first, second]);
    const outcome = (o: DispatchOutcome) => (o.family === 'workflow' ? o.result.outcome : o.family);
    // The completion of b is in both batches and applied once.
    expect([...one, ...two].filter((o) => o.family === 'workflow' && o.result.outcome === 'applied' && o.result.executionId === b)).toHaveLength(1);
    expect([one.map(outcome), two.map(outcome)]).toEqual([
      ['applied', 'applied', 'applied'],
      ['ignored', 'applied'],
    ]);
    expect(await execution(a)).toMatchObject({ status: 'completed', outputs: { by: 2 } });
    expect(await execution(b)).toMatchObject({ status: 'completed', outputs: { by: 2 } });
    expect(await execution(x)).toMatchObject({ status: 'running' });
  });
});

async function execution(id: number): Promise<Record<string, unknown>> {
  const rows = (await bed.database.query('SELECT status, outputs FROM workflow_executions WHERE id = $1', [id])) as Record<string, unknown>[];
  return rows[0] ?? {};
}
