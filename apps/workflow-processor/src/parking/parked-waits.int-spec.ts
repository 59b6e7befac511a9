import { QUEUES } from '@docflow/contracts';
import { HttpTarget } from '@docflow/testing';
import { ExecutionStatusRepository } from '../checkpoints/execution-status.repository';
import { chain, definition, endNode, startNode, taskNode } from '../test-support/definitions';
import { ProcessorHarness, type ProcessorInstance } from '../test-support/processor-harness';

jest.setTimeout(40000);

interface WakeRow {
  wake_at: Date | null;
  parked: { node_id: string; attempt: number }[];
}

/** Issue #15 item 3: waits and long retry backoffs park the run instead of holding its message. */
describe('workflow processor: parked waits (RabbitMQ + PostgreSQL)', () => {
  let h: ProcessorHarness;
  let target: HttpTarget;
  let env: Record<string, string>;
  let seq = 900;
  const nextId = () => (seq += 1);
  const running: ProcessorInstance[] = [];

  beforeAll(async () => {
    target = await HttpTarget.start();
    h = await ProcessorHarness.start('wfp_parked');
    // Any gap of 300 ms or more parks; wake-ups are looked for every 50 ms.
    env = { REST_API_ALLOWED_HOSTS: target.hostPort, WAIT_PARK_AFTER_MS: '300', WAKE_POLL_INTERVAL_MS: '50' };
    await h.ds.query('CREATE TABLE workflow_executions (id bigint PRIMARY KEY, status text NOT NULL)');
  });

  afterEach(async () => {
    for (const p of running.splice(0)) await p.stop(500);
  });

  afterAll(async () => {
    await h?.stop();
    await target?.stop();
  });

  async function start(): Promise<ProcessorInstance> {
    const p = await h.startProcessor(env, undefined, { control: new ExecutionStatusRepository(h.ds) });
    running.push(p);
    return p;
  }

  function statusEndpoint(path: string, states: string[]): void {
    let polls = 0;
    target.on(`GET ${path}`, () => ({ body: { job: { state: states[Math.min(polls++, states.length - 1)] } } }));
  }

  const waitFlow = (path: string, pollSeconds: number) =>
    definition([startNode(), taskNode('w', 'wait_task', { endpoint: target.url(path), watch_field: 'job.state', poll_interval: pollSeconds, timeout: 30 }), endNode()], chain('start', 'w', 'end'));

  async function wakeRow(id: number): Promise<WakeRow | undefined> {
    const rows = (await h.ds.query('SELECT wake_at, parked FROM workflow_wakeups WHERE execution_key = $1', [`execution:${id}`])) as WakeRow[];
    return rows[0];
  }

  async function until<T>(what: string, probe: () => Promise<T | undefined | false>, ms = 10000): Promise<T> {
    const end = Date.now() + ms;
    for (;;) {
      const got = await probe();
      if (got !== undefined && got !== false) return got;
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  const scheduled = (id: number) => until(`a scheduled wake-up of ${id}`, async () => ((await wakeRow(id))?.wake_at ? wakeRow(id) : undefined));
  const queued = async () => (await h.probe.checkQueue(QUEUES.workflow)).messageCount;

  it('a wait parks between polls: the job is acked, nothing is in flight, and the run completes at its wake-ups', async () => {
    const p = await start();
    statusEndpoint('/parked/ok', ['running', 'running', 'completed']);
    const id = nextId();
    await h.submit(`wf_${id}`, { workflow_definition: waitFlow('/parked/ok', 0.6), inputs: {} });

    const row = await scheduled(id);
    expect(row.parked).toEqual([expect.objectContaining({ node_id: 'w', attempt: 1 })]);
    // Parked: no run holds the job, and it is not waiting in the queue either (it was acked).
    expect(p.processor.handler.jobs.size).toBe(0);
    expect(await queued()).toBe(0);
    expect(target.hitsOf('/parked/ok')).toHaveLength(1);

    const res = await h.results.next(`wf_${id}`, ['completed', 'failed'], 15000);
    expect(res.status).toBe('completed');
    expect(res.outputs?.['w']).toMatchObject({ status: 'success', final_value: 'completed' });
    // The wait's clock ran across deliveries: two gaps of 0.6 s at least.
    expect((res.outputs?.['w'] as { elapsed_seconds: number }).elapsed_seconds).toBeGreaterThanOrEqual(1.2);
    expect(target.hitsOf('/parked/ok')).toHaveLength(3);
    // The record heard the wait running while it was parked, and nothing is left to wake.
    expect(h.results.all(`wf_${id}`).some((m) => m.status === 'processing' && m.task_states?.['w']?.status === 'running')).toBe(true);
    await until('the wake-up row to go', async () => (await wakeRow(id)) === undefined);
  });

  it('a parked wait survives a processor restart: the stopped processor held nothing and the next one finishes the wait', async () => {
    const first = await start();
    statusEndpoint('/parked/restart', ['running', 'running', 'completed']);
    const id = nextId();
    await h.submit(`wf_${id}`, { workflow_definition: waitFlow('/parked/restart', 1.5), inputs: {} });
    await scheduled(id);

    await first.stop(500);
    running.splice(running.indexOf(first), 1);
    // Stopping requeued nothing: the job had been acked when the wait parked.
    expect(await queued()).toBe(0);
    await new Promise((r) => setTimeout(r, 2000));
    expect(target.hitsOf('/parked/restart')).toHaveLength(1);

    await start();
    const res = await h.results.next(`wf_${id}`, ['completed', 'failed'], 15000);
    expect(res.status).toBe('completed');
    expect(target.hitsOf('/parked/restart')).toHaveLength(3);
    expect((res.outputs?.['w'] as { elapsed_seconds: number }).elapsed_seconds).toBeGreaterThanOrEqual(3);
  });

  it('cancelling during a wait: the wake-up runs nothing, publishes no result and clears the park', async () => {
    await start();
    statusEndpoint('/parked/cancel', ['running']);
    const id = nextId();
    await h.ds.query("INSERT INTO workflow_executions (id, status) VALUES ($1, 'running')", [id]);
    await h.submit(`wf_${id}`, { workflow_definition: waitFlow('/parked/cancel', 0.8), inputs: {} });
    await scheduled(id);
    await h.ds.query("UPDATE workflow_executions SET status = 'cancelled' WHERE id = $1", [id]);

    await until('the cancelled run to clear its wake-up', async () => (await wakeRow(id)) === undefined);
    await new Promise((r) => setTimeout(r, 1200));
    expect(target.hitsOf('/parked/cancel')).toHaveLength(1);
    expect(h.results.all(`wf_${id}`).every((m) => m.status === 'processing')).toBe(true);
    expect(await queued()).toBe(0);
  });

  it('a long retry backoff parks too, and the woken node continues at its next attempt', async () => {
    await start();
    let calls = 0;
    target.on('GET /parked/flaky', () => (calls++ === 0 ? { status: 503, body: { error: 'busy' } } : { body: { ok: true } }));
    const id = nextId();
    const flow = definition(
      [startNode(), taskNode('r', 'rest_api_task', { url: target.url('/parked/flaky'), method: 'GET', retry: { max_attempts: 3, backoff_seconds: 0.5 } }), endNode()],
      chain('start', 'r', 'end'),
    );
    await h.submit(`wf_${id}`, { workflow_definition: flow, inputs: {} });
    const row = await scheduled(id);
    expect(row.parked).toEqual([expect.objectContaining({ node_id: 'r', attempt: 2 })]);

    const res = await h.results.next(`wf_${id}`, ['completed', 'failed'], 15000);
    expect(res.status).toBe('completed');
    expect(calls).toBe(2);
  });
});
