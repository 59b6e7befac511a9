import { silentLogger } from '@docflow/service-kit';
import { buildGraph, type WorkflowDefinition } from '@docflow/workflow';
import { NodeFailure, type NodeContext, type TaskExecutor } from '../executors/executor';
import type { ParkedNode, ParkedNodeSource } from '../parking/park-store';
import { chain, definition, edge, endNode, startNode, taskNode } from '../test-support/definitions';
import { testExecutors, testMeta, testMetrics } from '../test-support/engine-harness';
import { MemoryCheckpoints } from '../test-support/memory-checkpoints';
import type { RunOutcome, RunRequest } from './run-types';
import { WorkflowRun } from './workflow-run';

const NOW = new Date('2026-11-26T12:00:00.000Z');
const at = (ms: number) => new Date(NOW.getTime() + ms);
const HEARTBEAT_MS = 300_000;

class MemoryParks implements ParkedNodeSource {
  constructor(public parked: ParkedNode[] = []) {}
  async loadParked(): Promise<ParkedNode[]> {
    return this.parked.map((p) => ({ ...p }));
  }
}

interface Setup {
  executors: Record<string, TaskExecutor>;
  parks?: MemoryParks;
  checkpoints?: MemoryCheckpoints;
}

async function run(s: Setup, def: Record<string, unknown>, extra: Partial<RunRequest> = {}): Promise<{ outcome: RunOutcome; progress: string[][] }> {
  const progress: string[][] = [];
  const outcome = await new WorkflowRun(
    {
      executors: testExecutors(s.executors),
      checkpoints: s.checkpoints ?? new MemoryCheckpoints(),
      ...(s.parks ? { parks: s.parks, parking: { minMs: 10_000, heartbeatMs: HEARTBEAT_MS } } : {}),
      metrics: testMetrics(),
      now: () => NOW,
    },
    {
      jobId: 'wf_1',
      executionKey: 'execution:1',
      executionId: 1,
      graph: buildGraph(def as unknown as WorkflowDefinition),
      inputs: {},
      meta: testMeta,
      stopSignal: new AbortController().signal,
      logger: silentLogger,
      onProgress: (states) => progress.push(Object.entries(states).map(([id, st]) => `${id}:${st.status}`)),
      ...extra,
    },
  ).execute();
  return { outcome, progress };
}

/** A wait_task stand-in: parks for `gapMs` until it has been woken `wakes` times, then completes with what it was handed. */
function parkingWait(gapMs: number, wakes: number, seen: NodeContext[]): TaskExecutor {
  return async (ctx) => {
    seen.push(ctx);
    const n = typeof (ctx.parkedState as { n?: unknown } | undefined)?.n === 'number' ? (ctx.parkedState as { n: number }).n : 0;
    if (n < wakes && ctx.canPark) return { park: { until: at(gapMs), state: { n: n + 1 } } };
    return { output: { woken: n } };
  };
}

const waitFlow = () => definition([startNode(), taskNode('w', 'wait_task'), taskNode('after', 'rest_api_task'), endNode()], chain('start', 'w', 'after', 'end'));

describe('parking (issue #15 item 3)', () => {
  it('a node that parks ends the run `parked` at its due time, with its state, and runs nothing after it', async () => {
    const seen: NodeContext[] = [];
    let after = 0;
    const parks = new MemoryParks();
    const { outcome } = await run({ executors: { wait_task: parkingWait(30_000, 1, seen), rest_api_task: async () => ({ output: (after += 1) }) }, parks }, waitFlow());
    expect(outcome).toMatchObject({ status: 'parked', wakeAt: at(30_000), parked: [{ nodeId: 'w', due: at(30_000), attempt: 1, state: { n: 1 } }] });
    expect(outcome.taskStates['w']?.status).toBe('running');
    expect(after).toBe(0);
    expect(seen[0]?.canPark).toBe(true);
    expect(seen[0]?.parkedState).toBeUndefined();
  });

  it('the other branches finish before the run parks', async () => {
    const seen: NodeContext[] = [];
    const def = definition([startNode(), taskNode('w', 'wait_task'), taskNode('side', 'rest_api_task'), endNode()], [edge('start', 'w'), edge('start', 'side'), edge('w', 'end'), edge('side', 'end')]);
    const { outcome } = await run({ executors: { wait_task: parkingWait(30_000, 1, seen), rest_api_task: async () => ({ output: 'side done' }) }, parks: new MemoryParks() }, def);
    expect(outcome.status).toBe('parked');
    expect(outcome.outputs['side']).toBe('side done');
    expect(outcome.taskStates['side']?.status).toBe('completed');
  });

  it('a failure on another branch fails the run; the parked node reads as not run', async () => {
    const def = definition([startNode(), taskNode('w', 'wait_task'), taskNode('side', 'rest_api_task'), endNode()], [edge('start', 'w'), edge('start', 'side'), edge('w', 'end'), edge('side', 'end')]);
    const failing: TaskExecutor = async () => {
      await new Promise((r) => setTimeout(r, 5));
      throw new NodeFailure('http_error', 'HTTP 400');
    };
    const { outcome } = await run({ executors: { wait_task: parkingWait(30_000, 1, []), rest_api_task: failing }, parks: new MemoryParks() }, def);
    expect(outcome).toMatchObject({ status: 'failed', failedNode: 'side' });
    expect(outcome.taskStates['w']?.status).toBe('pending');
  });

  it('a woken node that is due runs again with the state it parked with, and the run goes on', async () => {
    const seen: NodeContext[] = [];
    const parks = new MemoryParks([{ nodeId: 'w', due: at(-500), attempt: 1, state: { n: 1 } }]);
    const { outcome } = await run({ executors: { wait_task: parkingWait(30_000, 1, seen), rest_api_task: async () => ({ output: 'after' }) }, parks }, waitFlow());
    expect(outcome.status).toBe('completed');
    expect(seen).toHaveLength(1);
    expect(seen[0]?.parkedState).toEqual({ n: 1 });
    expect(outcome.outputs).toMatchObject({ w: { woken: 1 }, after: 'after' });
  });

  it('a node woken before it is due (a heartbeat) runs nothing, reports progress and parks again at the same due time', async () => {
    const seen: NodeContext[] = [];
    const due = at(20 * 60_000);
    const parks = new MemoryParks([{ nodeId: 'w', due, attempt: 1, state: { n: 1 } }]);
    const { outcome, progress } = await run({ executors: { wait_task: parkingWait(30_000, 1, seen), rest_api_task: async () => ({ output: 'after' }) }, parks }, waitFlow());
    expect(seen).toHaveLength(0);
    // Woken again at the next heartbeat, not at the far due time; the node keeps its due time and state.
    expect(outcome).toMatchObject({ status: 'parked', wakeAt: at(HEARTBEAT_MS), parked: [{ nodeId: 'w', due, attempt: 1, state: { n: 1 } }] });
    expect(progress.some((p) => p.includes('w:running'))).toBe(true);
  });

  it('a wake-up is brought forward to the run’s deadline', async () => {
    const { outcome } = await run({ executors: { wait_task: parkingWait(30 * 60_000, 1, []) }, parks: new MemoryParks() }, waitFlow(), {
      deadline: { at: at(60_000), text: '1 minute' },
    });
    expect(outcome).toMatchObject({ status: 'parked', wakeAt: at(60_000) });
  });

  it('a node still parked when the deadline passes fails with the deadline', async () => {
    const seen: NodeContext[] = [];
    const parks = new MemoryParks([{ nodeId: 'w', due: at(60_000), attempt: 1, state: { n: 1 } }]);
    const { outcome } = await run({ executors: { wait_task: parkingWait(30_000, 1, seen) }, parks }, waitFlow(), { deadline: { at: at(-1000), text: '1 minute' } });
    expect(outcome).toMatchObject({ status: 'failed', errorType: 'deadline_exceeded', failedNode: 'w' });
    expect(outcome.taskStates['w']).toMatchObject({ status: 'failed', error_type: 'deadline_exceeded' });
    expect(seen).toHaveLength(0);
  });

  it('a node with a terminal checkpoint ignores a parked row left behind', async () => {
    const checkpoints = new MemoryCheckpoints();
    await checkpoints.saveTerminal('execution:1', 'wf_1', {
      nodeId: 'w',
      taskType: 'wait_task',
      status: 'completed',
      output: { done: true },
      error: null,
      errorType: null,
      correlationToken: null,
      startedAt: NOW,
      completedAt: NOW,
      cost: null,
    });
    const seen: NodeContext[] = [];
    const parks = new MemoryParks([{ nodeId: 'w', due: at(60_000), attempt: 1, state: { n: 1 } }]);
    const { outcome } = await run({ executors: { wait_task: parkingWait(30_000, 1, seen), rest_api_task: async () => ({ output: 'after' }) }, parks, checkpoints }, waitFlow());
    expect(outcome.status).toBe('completed');
    expect(seen).toHaveLength(0);
  });

  it('a retry backoff of WAIT_PARK_AFTER_MS or more parks at the next attempt, and the woken node counts its attempts on', async () => {
    let calls = 0;
    const transient: TaskExecutor = async () => {
      calls += 1;
      throw new NodeFailure('http_error', 'HTTP 503', undefined, true);
    };
    const def = definition([startNode(), taskNode('r', 'rest_api_task', { retry: { max_attempts: 3, backoff_seconds: 20 } }), endNode()], chain('start', 'r', 'end'));
    const first = await run({ executors: { rest_api_task: transient }, parks: new MemoryParks() }, def);
    expect(first.outcome).toMatchObject({ status: 'parked', parked: [{ nodeId: 'r', due: at(20_000), attempt: 2, state: null }] });
    expect(calls).toBe(1);

    // Attempt 2 fails: the backoff doubles (40 s) and the node parks for attempt 3.
    const second = await run({ executors: { rest_api_task: transient }, parks: new MemoryParks([{ nodeId: 'r', due: at(0), attempt: 2, state: null }]) }, def);
    expect(second.outcome).toMatchObject({ status: 'parked', parked: [{ nodeId: 'r', due: at(40_000), attempt: 3 }] });
    // Attempt 3 is the last: the failure is the node's.
    const third = await run({ executors: { rest_api_task: transient }, parks: new MemoryParks([{ nodeId: 'r', due: at(0), attempt: 3, state: null }]) }, def);
    expect(third.outcome).toMatchObject({ status: 'failed', failedNode: 'r', errorType: 'http_error' });
    expect(calls).toBe(3);
  });

  it('without a park store nothing parks: executors are told so and backoffs are slept', async () => {
    const seen: NodeContext[] = [];
    const { outcome } = await run({ executors: { wait_task: parkingWait(30_000, 1, seen), rest_api_task: async () => ({ output: 'after' }) } }, waitFlow());
    expect(seen[0]?.canPark).toBe(false);
    expect(outcome.status).toBe('completed');
  });
});
