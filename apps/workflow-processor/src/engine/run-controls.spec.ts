import type { TaskExecutor } from '../executors/executor';
import { chain, definition, edge, endNode, startNode, taskNode } from '../test-support/definitions';
import { deferred, EngineHarness, within } from '../test-support/engine-harness';
import { RunAborted } from './abort';

const threeSteps = () => definition([startNode(), taskNode('a', 'rest_api_task', { url: 'u' }), taskNode('b', 'rest_api_task', { url: 'u' }), endNode()], chain('start', 'a', 'b', 'end'));

describe('execution controls in the engine (issue #15)', () => {
  it('abandons a cancelled run at the next step boundary: nothing after it starts and no outcome is produced', async () => {
    const calls: string[] = [];
    let cancelled = false;
    const aStarted = deferred();
    const release = deferred();
    const executor: TaskExecutor = async (ctx) => {
      calls.push(ctx.nodeId);
      if (ctx.nodeId === 'a') {
        aStarted.resolve();
        await release.promise;
      }
      return { output: { node: ctx.nodeId } };
    };
    const h = new EngineHarness({ executors: { rest_api_task: executor }, control: { isCancelled: async () => cancelled } });
    const run = h.run(threeSteps());
    await within(aStarted.promise, 2000, 'node a starting');
    cancelled = true;
    release.resolve();
    await expect(run).rejects.toMatchObject({ name: 'RunAborted', kind: 'cancelled' });
    expect(calls).toEqual(['a']);
  });

  describe('reads the status only where a cancel can change something (issue #16)', () => {
    const counting = (answer: () => boolean) => {
      const reads = { n: 0 };
      return { reads, control: { isCancelled: async () => (reads.n++, answer()) } };
    };

    it('never for a start → decision → end run', async () => {
      const { reads, control } = counting(() => false);
      const def = definition([startNode(), taskNode('d', 'decision', { operator: '>', left_operand: '$.amount', right_operand: 100 }), endNode()], [edge('start', 'd'), edge('d', 'end', 'true')]);
      const out = await new EngineHarness({ executors: {}, control }).run(def, { inputs: { amount: 150 } });
      expect(out.status).toBe('completed');
      expect(reads.n).toBe(0);
    });

    it('before each node that does work and after the last one, not after the end node', async () => {
      const { reads, control } = counting(() => false);
      const out = await new EngineHarness({ executors: { rest_api_task: async () => ({ output: {} }) }, control }).run(threeSteps());
      expect(out.status).toBe('completed');
      // Before the delivery; after start (a starts next); after a (b starts next, a ended); after b (b ended: its result is what a cancel stops). Not after end.
      expect(reads.n).toBe(4);
    });

    it('a cancel while the last working node runs still publishes no outcome, though only the end node follows', async () => {
      let cancelled = false;
      const bStarted = deferred();
      const release = deferred();
      const executor: TaskExecutor = async (ctx) => {
        if (ctx.nodeId === 'b') {
          bStarted.resolve();
          await release.promise;
        }
        return { output: {} };
      };
      const run = new EngineHarness({ executors: { rest_api_task: executor }, control: { isCancelled: async () => cancelled } }).run(threeSteps());
      await within(bStarted.promise, 2000, 'node b starting');
      cancelled = true;
      release.resolve();
      await expect(run).rejects.toMatchObject({ name: 'RunAborted', kind: 'cancelled' });
    });
  });

  describe('a graph of pure nodes reads no cancel state (issue #16)', () => {
    const pureDef = () =>
      definition([startNode(), taskNode('d', 'decision', { operator: '>', left_operand: '$.amount', right_operand: 100 }), endNode()], [edge('start', 'd'), edge('d', 'end', 'true')]);

    it('completes without reading, even with a read handed to it and a control that would answer cancelled', async () => {
      let reads = 0;
      const read = deferred<boolean>();
      const outcome = await new EngineHarness({ executors: {}, control: { isCancelled: async () => (reads++, true) } }).run(pureDef(), { inputs: { amount: 150 }, cancelRead: read.promise });
      expect(outcome.status).toBe('completed');
      expect(reads).toBe(0);
    });

    it('completes when the database cannot be read', async () => {
      const outcome = await new EngineHarness({ executors: {}, control: { isCancelled: () => Promise.reject(new Error('database away')) } }).run(pureDef(), { inputs: { amount: 150 } });
      expect(outcome.status).toBe('completed');
    });

    it('a graph with a working node still reads before it runs anything', async () => {
      const calls: string[] = [];
      const read = deferred<boolean>();
      const run = new EngineHarness({ executors: { rest_api_task: async (ctx) => (calls.push(ctx.nodeId), { output: {} }) }, control: { isCancelled: async () => false } }).run(threeSteps(), {
        cancelRead: read.promise,
      });
      await new Promise((r) => setTimeout(r, 20));
      expect(calls).toEqual([]);
      read.resolve(false);
      expect((await run).status).toBe('completed');
      expect(calls).toEqual(['a', 'b']);
    });
  });

  it('runs nothing when the execution was cancelled before the delivery', async () => {
    const calls: string[] = [];
    const h = new EngineHarness({ executors: { rest_api_task: async (ctx) => (calls.push(ctx.nodeId), { output: {} }) }, control: { isCancelled: async () => true } });
    await expect(h.run(threeSteps())).rejects.toBeInstanceOf(RunAborted);
    expect(calls).toEqual([]);
  });

  it('a retry restores the completed nodes of the failed execution and runs only the rest', async () => {
    const calls: string[] = [];
    const h = new EngineHarness({ executors: { rest_api_task: async (ctx) => (calls.push(ctx.nodeId), { output: { from: ctx.config } }) } });
    const at = new Date('2026-01-01T00:00:00Z');
    const def = definition([startNode(), taskNode('a', 'rest_api_task', { url: 'u' }), taskNode('b', 'rest_api_task', { url: 'x/{{a.token}}' }), endNode()], chain('start', 'a', 'b', 'end'));
    const out = await h.run(def, {
      prior: [
        { nodeId: 'start', output: {}, startedAt: at, completedAt: at },
        { nodeId: 'a', output: { token: 't-1' }, startedAt: at, completedAt: at },
      ],
    });
    expect(out.status).toBe('completed');
    expect(calls).toEqual(['b']);
    expect(out.outputs['a']).toEqual({ token: 't-1' });
    expect(out.outputs['b']).toEqual({ from: { url: 'x/t-1' } });
  });
});
