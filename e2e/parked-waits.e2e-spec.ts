import { HttpTarget } from '@docflow/testing';
import { queueDepth } from './support/rabbit';
import { eventually, Stack } from './support/stack';
import { chain, definition, endNode, startNode, taskNode, WorkflowApi } from './support/workflow-api';

jest.setTimeout(180000);

let stack: Stack;
let target: HttpTarget;
let alice: WorkflowApi;

beforeAll(async () => {
  target = await HttpTarget.start('127.0.0.1');
  stack = await Stack.start({ portOffset: 1100, env: { REST_API_ALLOWED_HOSTS: target.hostPort } });
  alice = await WorkflowApi.login(stack.api, 'alice@docflow.local', 'Alice#Pass123');
});

afterAll(async () => {
  await stack?.stop();
  await target?.stop();
});

/** A counter or gauge of the workflow processor's /metrics (0 when absent). */
async function processorMetric(pattern: RegExp): Promise<number> {
  const text = await (await fetch(`${stack.url('workflow-processor')}/metrics`)).text();
  const m = pattern.exec(text);
  return m ? Number(m[1]) : 0;
}

describe('long waits (issue #15 item 3)', () => {
  it('a 10-minute wait_task parks; the processor is stopped and started; cancelling it gives `cancelled` and its wake-up does nothing', async () => {
    target.on('GET /forever', () => ({ body: { state: 'running' } }));
    target.on('GET /after', () => ({ body: { after: true } }));
    const def = definition(
      [
        startNode(),
        taskNode('wait', 'wait_task', { endpoint: target.url('/forever'), watch_field: 'state', poll_interval: 15, timeout: 600 }),
        taskNode('after', 'rest_api_task', { url: target.url('/after') }),
        endNode(),
      ],
      chain('start', 'wait', 'after', 'end'),
    );
    expect(await alice.validate(def)).toEqual({ valid: true, errors: [] });
    const id = await alice.start(await alice.createActivity({ name: 'ten-minute wait', workflow_definition: def }), {});
    await target.waitForHits('/forever', 1, 20000);

    // Parked: the processor counts it, holds no job, and the queue is empty (the job was acked).
    await eventually(async () => ((await processorMetric(/^workflow_runs_parked_total\{[^}]*\} (\S+)$/m)) >= 1 ? true : undefined), 15000, 'the wait to park');
    expect(await processorMetric(/^workflow_executions_in_flight\{[^}]*\} (\S+)$/m)).toBe(0);
    expect(await queueDepth(stack.vhost.url, 'workflow_queue')).toBe(0);
    expect((await alice.status(id)).status).toBe('running');

    // Stopped and started: nothing was in flight, so nothing goes back to the queue.
    expect(await stack.stopService('workflow-processor')).toBe(0);
    expect(await queueDepth(stack.vhost.url, 'workflow_queue')).toBe(0);
    await stack.restart('workflow-processor');
    expect((await alice.status(id)).status).toBe('running');

    const cancelled = await alice.expect<{ data: { status: string; previous_status: string } }>(200, 'POST', `/workflow-executions/${id}/cancel`);
    expect(cancelled.data).toMatchObject({ status: 'cancelled', previous_status: 'running' });

    // The wake-up (15 s after the first poll) reaches the new processor, which abandons the cancelled run before polling.
    await eventually(async () => ((await processorMetric(/^workflow_executions_total\{[^}]*status="cancelled"[^}]*\} (\S+)$/m)) >= 1 ? true : undefined), 40000, 'the woken run to be abandoned');
    expect(target.hitsOf('/forever')).toHaveLength(1);
    expect(target.hitsOf('/after')).toHaveLength(0);
    expect((await alice.status(id)).status).toBe('cancelled');
  });
});
