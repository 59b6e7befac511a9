import { Gate, HttpTarget } from '@docflow/testing';
import { eventually, Stack } from './support/stack';
import { chain, definition, endNode, ErrorBody, startNode, taskNode, WorkflowApi } from './support/workflow-api';

jest.setTimeout(180000);

let stack: Stack;
/** The REST target, the only REST_API_ALLOWED_HOSTS entry; it counts every call. */
let target: HttpTarget;
let alice: WorkflowApi;
let bob: WorkflowApi;

beforeAll(async () => {
  target = await HttpTarget.start('127.0.0.1');
  stack = await Stack.start({ portOffset: 700, env: { REST_API_ALLOWED_HOSTS: target.hostPort } });
  [alice, bob] = await Promise.all([WorkflowApi.login(stack.api, 'alice@docflow.local', 'Alice#Pass123'), WorkflowApi.login(stack.api, 'bob@docflow.local', 'Bob#Pass123')]);
});

afterAll(async () => {
  await stack?.stop();
  await target?.stop();
});

/** A route that answers 503 to its first `failures` calls, then 200 with the call number. */
function flaky(path: string, failures: number): void {
  let calls = 0;
  target.on(path, () => {
    calls += 1;
    return calls <= failures ? { status: 503, body: { error: 'busy' } } : { body: { call: calls } };
  });
}

/** Runs the workflow processor abandoned because their execution was cancelled (its /metrics). */
async function cancelledRuns(): Promise<number> {
  const text = await (await fetch(`${stack.url('workflow-processor')}/metrics`)).text();
  const m = /^workflow_executions_total\{[^}]*status="cancelled"[^}]*\} (\S+)$/m.exec(text);
  return m ? Number(m[1]) : 0;
}

async function activity(name: string, def: Record<string, unknown>): Promise<number> {
  expect(await alice.validate(def)).toEqual({ valid: true, errors: [] });
  return alice.createActivity({ name, workflow_definition: def });
}

describe('execution controls (issue #15)', () => {
  it('retries a failed execution from its failed node: the nodes before it are not run again', async () => {
    target.on('GET /lookup', () => ({ body: { token: 'tk-7' } }));
    flaky('POST /charge', 1);
    const def = definition(
      [
        startNode(),
        taskNode('lookup', 'rest_api_task', { url: target.url('/lookup') }),
        taskNode('charge', 'rest_api_task', { url: target.url('/charge'), method: 'POST', body: { token: '{{lookup.token}}' } }),
        endNode(),
      ],
      chain('start', 'lookup', 'charge', 'end'),
    );
    const first = await alice.run(await activity('flaky charge', def), {});
    expect(first).toMatchObject({ status: 'failed', failed_node: 'charge' });

    expect((await bob.request('POST', `/workflow-executions/${first.id}/retry`)).status).toBe(404);
    const retried = await alice.expect<{ execution_id: number; retry_of: number }>(201, 'POST', `/workflow-executions/${first.id}/retry`);
    expect(retried.retry_of).toBe(first.id);
    const done = await alice.waitFor(retried.execution_id);
    expect(done).toMatchObject({ status: 'completed', failed_node: null });
    expect(done.outputs).toMatchObject({ lookup: { token: 'tk-7' }, charge: { call: 2 } });
    expect(target.hitsOf('/lookup')).toHaveLength(1);
    const charges = target.hitsOf('/charge');
    expect(charges).toHaveLength(2);
    expect(JSON.parse(charges[1]!.body)).toEqual({ token: 'tk-7' });
    // A completed execution is not retried, nor cancelled.
    expect((await alice.request<ErrorBody>('POST', `/workflow-executions/${retried.execution_id}/retry`)).status).toBe(409);
    expect((await alice.request<ErrorBody>('POST', `/workflow-executions/${retried.execution_id}/cancel`)).body.error).toMatchObject({ status: 409, name: 'ConflictError' });
  });

  it('retries a transient REST failure within the node’s retry policy', async () => {
    flaky('GET /wobbly', 2);
    const def = definition(
      [startNode(), taskNode('call', 'rest_api_task', { url: target.url('/wobbly'), retry: { max_attempts: 3, backoff_seconds: 0.2 } }), endNode()],
      chain('start', 'call', 'end'),
    );
    const done = await alice.run(await activity('wobbly', def), {});
    expect(done).toMatchObject({ status: 'completed', outputs: { call: { call: 3 } } });
    expect(target.hitsOf('/wobbly')).toHaveLength(3);
  });

  it('cancels a running execution: the node in flight is abandoned and nothing after it runs', async () => {
    const gate = new Gate();
    target.on('GET /slow', gate.route({ body: { slow: true } }));
    target.on('GET /after', () => ({ body: { after: true } }));
    const def = definition(
      [startNode(), taskNode('slow', 'rest_api_task', { url: target.url('/slow') }), taskNode('after', 'rest_api_task', { url: target.url('/after') }), endNode()],
      chain('start', 'slow', 'after', 'end'),
    );
    const id = await alice.start(await activity('slow', def), {});
    await target.waitForHits('/slow', 1, 15000);
    expect((await bob.request('POST', `/workflow-executions/${id}/cancel`)).status).toBe(404);
    const cancelled = await alice.expect<{ data: { status: string; previous_status: string } }>(200, 'POST', `/workflow-executions/${id}/cancel`);
    expect(cancelled.data).toMatchObject({ status: 'cancelled', previous_status: 'running' });
    gate.open();
    // The processor sees the cancel at the step boundary after `slow` and acks the job without running `after`.
    await eventually(async () => ((await cancelledRuns()) >= 1 ? true : undefined), 20000, 'the processor abandoning the cancelled run');
    expect(target.hitsOf('/after')).toHaveLength(0);
    expect((await alice.status(id)).status).toBe('cancelled');
  });
});
