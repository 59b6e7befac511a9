import type { OutboundClient } from '@docflow/outbound-http';
import { silentLogger } from '@docflow/service-kit';
import { NodeFailure, type NodeContext, type ParkOutcome } from './executor';
import { createWaitExecutor } from './wait.executor';

function ctx(config: Record<string, unknown>, extra: Partial<NodeContext> = {}): NodeContext {
  return {
    executionKey: 'execution:1',
    jobId: 'wf_1',
    nodeId: 'w',
    nodeType: 'task',
    taskType: 'wait_task',
    label: 'W',
    config,
    rawConfig: config,
    scope: {},
    inputs: {},
    signal: new AbortController().signal,
    logger: silentLogger,
    canPark: true,
    ...extra,
  };
}

/** A status endpoint answering `states` in turn (then the last one), on a clock the test moves. */
function statusClient(states: string[], clock: { now: number }, pollCostMs = 0): { client: OutboundClient; polls: () => number } {
  let polls = 0;
  const client: OutboundClient = {
    request: async () => {
      const state = states[Math.min(polls, states.length - 1)];
      polls += 1;
      clock.now += pollCostMs;
      return { status: 200, headers: {}, body: { state }, text: '', url: 'https://api.example/s' };
    },
  };
  return { client, polls: () => polls };
}

const config = (extra: Record<string, unknown> = {}) => ({ endpoint: 'https://api.example/s', watch_field: 'state', poll_interval: 30, timeout: 600, ...extra });

describe('wait_task parking (issue #15 item 3)', () => {
  it('parks when the next poll is WAIT_PARK_AFTER_MS or more away, with its start and last value', async () => {
    const clock = { now: 1_000_000 };
    const { client, polls } = statusClient(['running'], clock);
    const run = createWaitExecutor({ client, requestTimeoutSeconds: 10, parkAfterMs: 10_000, holdMaxMs: 60_000, now: () => clock.now });
    const out = (await run(ctx(config()))) as ParkOutcome;
    expect(polls()).toBe(1);
    expect(out.park.until).toEqual(new Date(1_000_000 + 30_000));
    expect(out.park.state).toEqual({ started_at: 1_000_000, last_value: 'running', last_response: { state: 'running' } });
  });

  it('woken, it counts its timeout from the first poll of the first delivery', async () => {
    const clock = { now: 1_000_000 + 600_000 };
    const { client } = statusClient(['running'], clock);
    const run = createWaitExecutor({ client, requestTimeoutSeconds: 10, parkAfterMs: 10_000, holdMaxMs: 60_000, now: () => clock.now });
    const parkedState = { started_at: 1_000_000, last_value: 'running', last_response: { state: 'running' } };
    const err = await run(ctx(config(), { parkedState })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NodeFailure);
    expect((err as NodeFailure).errorType).toBe('timeout');
    expect((err as NodeFailure).message).toBe('wait_task timed out after 600 s (state was "running")');
    expect((err as NodeFailure).result).toMatchObject({ status: 'failure', elapsed_seconds: 600 });
  });

  it('woken, it completes with the time elapsed since the first poll', async () => {
    const clock = { now: 1_000_000 + 90_000 };
    const { client } = statusClient(['completed'], clock);
    const run = createWaitExecutor({ client, requestTimeoutSeconds: 10, parkAfterMs: 10_000, now: () => clock.now });
    const out = await run(ctx(config(), { parkedState: { started_at: 1_000_000, last_value: 'running' } }));
    expect(out).toEqual({ output: { status: 'success', final_value: 'completed', response: { state: 'completed' }, elapsed_seconds: 90 } });
  });

  it('short gaps are slept in process until the delivery has held the wait for WAIT_HOLD_MAX_MS', async () => {
    const clock = { now: 0 };
    // Every poll "takes" 400 ms of the test clock; the real sleep between polls is 10 ms.
    const { client, polls } = statusClient(['running'], clock, 400);
    const run = createWaitExecutor({ client, requestTimeoutSeconds: 10, minPollIntervalSeconds: 0, parkAfterMs: 10_000, holdMaxMs: 1000, now: () => clock.now });
    const out = (await run(ctx(config({ poll_interval: 0.01 })))) as ParkOutcome;
    expect('park' in out).toBe(true);
    // Held 400 ms, then 800 ms (each still under the hold with the next gap), then 1200 ms: parked after the third poll.
    expect(polls()).toBe(3);
  });

  it('never parks when the engine cannot (no park store): the gap is slept', async () => {
    const clock = { now: 0 };
    const { client, polls } = statusClient(['running', 'completed'], clock);
    const run = createWaitExecutor({ client, requestTimeoutSeconds: 10, minPollIntervalSeconds: 0, parkAfterMs: 1, holdMaxMs: 1, now: () => clock.now });
    const out = await run(ctx(config({ poll_interval: 0.01 }), { canPark: false }));
    expect(out).toMatchObject({ output: { status: 'success' } });
    expect(polls()).toBe(2);
  });
});
