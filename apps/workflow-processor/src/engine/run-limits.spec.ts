import type { TaskExecutor } from '../executors/executor';
import { definition, edge, startNode, taskNode } from '../test-support/definitions';
import { deferred, EngineHarness, within } from '../test-support/engine-harness';
import { DEFAULT_RUN_LIMITS } from './workflow-run';

/** start fanning out to `n` rest_api_task nodes. */
function fanOut(n: number): Record<string, unknown> {
  const ids = Array.from({ length: n }, (_, i) => `n${i}`);
  return definition(
    [startNode(), ...ids.map((id) => taskNode(id, 'rest_api_task'))],
    ids.map((id) => edge('start', id)),
  );
}

describe('WorkflowRun limits (issue #13)', () => {
  it('has the documented defaults', () => {
    expect(DEFAULT_RUN_LIMITS).toEqual({ maxParallelNodes: 8, maxOutputBytes: 32 * 1024 * 1024 });
  });

  it('runs at most maxParallelNodes nodes at once; the others wait their turn', async () => {
    let running = 0;
    let peak = 0;
    let started = 0;
    const release = deferred();
    const twoRunning = deferred();
    const slow: TaskExecutor = async (ctx) => {
      running += 1;
      started += 1;
      peak = Math.max(peak, running);
      if (started === 2) twoRunning.resolve();
      await release.promise;
      running -= 1;
      return { output: { id: ctx.nodeId } };
    };
    const h = new EngineHarness({ executors: { rest_api_task: slow }, limits: { ...DEFAULT_RUN_LIMITS, maxParallelNodes: 2 } });
    const run = h.run(fanOut(6));
    await within(twoRunning.promise, 2000, 'two nodes starting');
    // Let the event loop turn: a third node would start now if nothing held it back.
    await new Promise((r) => setImmediate(r));
    expect(started).toBe(2);
    release.resolve();
    const out = await within(run, 2000, 'the run finishing');
    expect(out.status).toBe('completed');
    expect(started).toBe(6);
    expect(peak).toBe(2);
  });

  it('fails the node whose output takes the run past maxOutputBytes', async () => {
    const big: TaskExecutor = async (ctx) => ({ output: { id: ctx.nodeId, blob: 'x'.repeat(600) } });
    const h = new EngineHarness({ executors: { rest_api_task: big }, limits: { maxParallelNodes: 1, maxOutputBytes: 1000 } });
    const def = definition([startNode(), taskNode('a', 'rest_api_task'), taskNode('b', 'rest_api_task')], [edge('start', 'a'), edge('a', 'b')]);
    const out = await h.run(def);
    expect(out).toMatchObject({
      status: 'failed',
      failedNode: 'b',
      errorType: 'configuration_error',
      error: 'The outputs of this run would exceed 1000 bytes (WORKFLOW_MAX_OUTPUT_BYTES); node b produced 620',
    });
    expect(out.outputs['a']).toMatchObject({ id: 'a' });
    expect(out.outputs['b']).toBeUndefined();
  });
});
