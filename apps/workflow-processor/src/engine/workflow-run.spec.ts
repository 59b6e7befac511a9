import type { TaskState } from '@docflow/contracts';
import { NodeFailure, type NodeContext, type TaskExecutor } from '../executors/executor';
import { chain, definition, edge, endNode, startNode, taskNode } from '../test-support/definitions';
import { deferred, EngineHarness, within } from '../test-support/engine-harness';
import { sleep } from './abort';

/** A rest_api_task stand-in that records its calls and echoes its resolved config. */
function recordingExecutor(calls: string[], behaviour: (ctx: NodeContext) => Promise<unknown> = async (ctx) => ({ echo: ctx.config })): TaskExecutor {
  return async (ctx) => {
    calls.push(ctx.nodeId);
    return { output: await behaviour(ctx) };
  };
}

const statusOf = (states: Record<string, TaskState>) => Object.fromEntries(Object.entries(states).map(([id, s]) => [id, s.status]));

describe('WorkflowRun', () => {
  it('runs a linear workflow, resolving templates from inputs, context and upstream outputs', async () => {
    const calls: string[] = [];
    const h = new EngineHarness({ executors: { rest_api_task: recordingExecutor(calls) } });
    const def = definition(
      [startNode(), taskNode('a', 'rest_api_task', { url: 'http://x/{{item}}' }), taskNode('b', 'rest_api_task', { url: 'http://x/{{a.echo.url}}/{{execution_id}}', n: '{{start.count}}' }), endNode()],
      chain('start', 'a', 'b', 'end'),
    );
    const out = await h.run(def, { inputs: { item: 'i-1', count: 3 } });
    expect(out.status).toBe('completed');
    expect(calls).toEqual(['a', 'b']);
    expect(out.outputs['start']).toEqual({ item: 'i-1', count: 3 });
    expect(out.outputs['b']).toEqual({ echo: { url: 'http://x/http://x/i-1/1', n: 3 } });
    expect(statusOf(out.taskStates)).toEqual({ start: 'completed', a: 'completed', b: 'completed', end: 'completed' });
    expect(out.taskStates['a']).toMatchObject({ task_type: 'rest_api_task', label: 'Node a', error: null });
    expect(typeof out.taskStates['a']?.started_at).toBe('string');
    // Both working nodes were checkpointed, control nodes were not.
    expect([...(h.checkpoints.rows.get('execution:1')?.keys() ?? [])].sort()).toEqual(['a', 'b']);
  });

  it('leaves unresolvable templates as literal text', async () => {
    const h = new EngineHarness({ executors: { rest_api_task: recordingExecutor([]) } });
    const out = await h.run(definition([startNode(), taskNode('a', 'rest_api_task', { url: 'http://x/{{nope.field}}' })], chain('start', 'a')));
    expect(out.outputs['a']).toEqual({ echo: { url: 'http://x/{{nope.field}}' } });
  });

  it('runs independent branches concurrently and the join once, after both', async () => {
    const events: string[] = [];
    const bothStarted = deferred();
    let started = 0;
    const h = new EngineHarness({
      executors: {
        rest_api_task: async (ctx) => {
          events.push(`start:${ctx.nodeId}`);
          if (ctx.nodeId !== 'join') {
            started += 1;
            if (started === 2) bothStarted.resolve();
            await within(bothStarted.promise, 2000, 'the other branch starting');
          }
          events.push(`end:${ctx.nodeId}`);
          return { output: { id: ctx.nodeId } };
        },
      },
    });
    const def = definition(
      [startNode(), taskNode('a', 'rest_api_task', { url: 'http://a' }), taskNode('b', 'rest_api_task', { url: 'http://b' }), taskNode('join', 'rest_api_task', { url: 'http://j' })],
      [edge('start', 'a'), edge('start', 'b'), edge('a', 'join'), edge('b', 'join')],
    );
    const out = await h.run(def);
    expect(out.status).toBe('completed');
    expect(events.slice(0, 2)).toEqual(['start:a', 'start:b']);
    expect(events.slice(-2)).toEqual(['start:join', 'end:join']);
    expect(events.filter((e) => e === 'start:join')).toHaveLength(1);
  });

  describe('decision', () => {
    const def = definition(
      [
        startNode(),
        taskNode('d', 'decision', { operator: '>', left_operand: '$.amount', right_operand: 100 }),
        taskNode('hi', 'rest_api_task', { url: 'http://hi' }),
        taskNode('lo', 'rest_api_task', { url: 'http://lo' }),
        taskNode('join', 'rest_api_task', { url: 'http://join/{{d.branch}}' }),
        endNode(),
      ],
      [edge('start', 'd'), edge('d', 'hi', 'true'), edge('d', 'lo', 'false'), edge('hi', 'join'), edge('lo', 'join'), edge('join', 'end')],
    );

    it.each([
      [150, 'hi', 'lo', 'true'],
      [50, 'lo', 'hi', 'false'],
    ])('amount %d takes %s, skips %s and runs the join once', async (amount, taken, skipped, branch) => {
      const calls: string[] = [];
      const h = new EngineHarness({ executors: { rest_api_task: recordingExecutor(calls) } });
      const out = await h.run(def, { inputs: { amount } });
      expect(out.status).toBe('completed');
      expect(calls).toEqual([taken, 'join']);
      expect(out.taskStates[skipped]?.status).toBe('skipped');
      expect(out.outputs['d']).toMatchObject({ result: branch === 'true', branch, decision: branch, active_path: branch });
      expect(out.outputs['join']).toEqual({ echo: { url: `http://join/${branch}` } });
      expect(out.taskStates['end']?.status).toBe('completed');
    });

    it('never touches the checkpoint store for control and decision nodes only', async () => {
      const h = new EngineHarness({ executors: {} });
      const only = definition(
        [startNode(), taskNode('d', 'decision_task', { operator: '==', left_operand: '$.kind', right_operand: 'a' }), endNode('yes'), endNode('no')],
        [edge('start', 'd'), edge('d', 'yes', 'true'), edge('d', 'no', 'false')],
      );
      const out = await h.run(only, { inputs: { kind: 'b' } });
      expect(out.status).toBe('completed');
      expect(statusOf(out.taskStates)).toEqual({ start: 'completed', d: 'completed', yes: 'skipped', no: 'completed' });
      expect(h.checkpoints.totalCalls).toBe(0);
      expect(h.progress).toHaveLength(0);
    });
  });

  it('fails fast: the failing node is failed with its error, downstream stays pending', async () => {
    const h = new EngineHarness({
      executors: {
        rest_api_task: async (ctx) => {
          if (ctx.nodeId === 'a') throw new NodeFailure('http_error', 'HTTP 500: boom');
          return { output: {} };
        },
      },
    });
    const out = await h.run(definition([startNode(), taskNode('a', 'rest_api_task', { url: 'u' }), taskNode('b', 'rest_api_task', { url: 'u' }), endNode()], chain('start', 'a', 'b', 'end')));
    expect(out).toMatchObject({ status: 'failed', error: 'HTTP 500: boom', errorType: 'http_error', failedNode: 'a' });
    expect(statusOf(out.taskStates)).toEqual({ start: 'completed', a: 'failed', b: 'pending', end: 'pending' });
    expect(out.taskStates['a']).toMatchObject({ error: 'HTTP 500: boom', error_type: 'http_error' });
    expect(h.checkpoints.rows.get('execution:1')?.get('a')?.status).toBe('failed');
  });

  it('abandons a sibling still running when a node fails, and reports it as not run', async () => {
    const h = new EngineHarness({
      executors: {
        rest_api_task: async (ctx) => {
          if (ctx.nodeId === 'bad') throw new NodeFailure('network_error', 'Network error contacting x: ECONNREFUSED');
          await sleep(60_000, ctx.signal);
          return { output: {} };
        },
      },
    });
    const def = definition([startNode(), taskNode('slow', 'rest_api_task', { url: 'u' }), taskNode('bad', 'rest_api_task', { url: 'u' })], [edge('start', 'slow'), edge('start', 'bad')]);
    const out = await within(h.run(def), 2000, 'the failure');
    expect(out).toMatchObject({ status: 'failed', failedNode: 'bad', errorType: 'network_error' });
    expect(out.taskStates['slow']).toMatchObject({ status: 'pending' });
    expect(out.taskStates['slow']?.started_at).toBeUndefined();
  });

  it('fails the nodes running at the deadline with WORKFLOW_DEADLINE_EXCEEDED', async () => {
    const h = new EngineHarness({ executors: { wait_task: async (ctx) => (await sleep(60_000, ctx.signal), { output: {} }) } });
    const deadline = new Date(Date.now() + 80);
    const out = await within(
      h.run(definition([startNode(), taskNode('w', 'wait_task', { endpoint: 'http://x', watch_field: 's' }), endNode()], chain('start', 'w', 'end')), {
        deadline: { at: deadline, text: deadline.toISOString() },
      }),
      3000,
      'the deadline',
    );
    expect(out).toMatchObject({ status: 'failed', errorType: 'deadline_exceeded', failedNode: 'w' });
    expect(out.status === 'failed' && out.error).toBe(`WORKFLOW_DEADLINE_EXCEEDED: execution exceeded its deadline of ${deadline.toISOString()}`);
    expect(statusOf(out.taskStates)).toEqual({ start: 'completed', w: 'failed', end: 'pending' });
    expect(h.checkpoints.rows.get('execution:1')?.has('w')).toBe(false);
  });

  it('fails at once, naming the next nodes, when the deadline has already passed', async () => {
    const calls: string[] = [];
    const h = new EngineHarness({ executors: { rest_api_task: recordingExecutor(calls) } });
    const out = await h.run(definition([startNode(), taskNode('a', 'rest_api_task', { url: 'u' })], chain('start', 'a')), {
      deadline: { at: new Date(Date.now() - 1000), text: 'the past' },
    });
    expect(out).toMatchObject({ status: 'failed', errorType: 'deadline_exceeded', failedNode: 'start' });
    expect(calls).toEqual([]);
  });

  describe('user input', () => {
    const def = definition(
      [
        startNode(),
        taskNode('a', 'rest_api_task', { url: 'http://pre' }),
        taskNode('ask', 'user_input_task', { input_schema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } }),
        taskNode('b', 'rest_api_task', { url: 'http://post/{{ask.ok}}' }),
        endNode(),
      ],
      chain('start', 'a', 'ask', 'b', 'end'),
    );

    it('pauses with a token, keeps it on redelivery, and resumes without re-running earlier nodes', async () => {
      const calls: string[] = [];
      const h = new EngineHarness({ executors: { rest_api_task: recordingExecutor(calls) } });
      const paused = await h.run(def);
      if (paused.status !== 'awaiting_user_input') throw new Error(`expected a pause, got ${paused.status}`);
      expect(paused.awaitingNode).toBe('ask');
      expect(paused.correlationToken).toMatch(/^[0-9a-f]{64}$/);
      expect(paused.inputSchema).toMatchObject({ required: ['ok'] });
      expect(statusOf(paused.taskStates)).toEqual({ start: 'completed', a: 'completed', ask: 'running', b: 'pending', end: 'pending' });

      const again = await h.run(def);
      expect(again).toMatchObject({ status: 'awaiting_user_input', correlationToken: paused.correlationToken });
      expect(h.checkpoints.calls.savePause).toBe(1);

      const wrong = await h.run(def, { jobId: 'wf_1_resume_1', resume: { nodeId: 'b', payload: { ok: true } } });
      expect(wrong).toMatchObject({ status: 'failed', errorType: 'validation_error' });

      const invalid = await h.run(def, { jobId: 'wf_1_resume_1', resume: { nodeId: 'ask', payload: { ok: 'yes' } } });
      expect(invalid).toMatchObject({ status: 'failed', errorType: 'validation_error', failedNode: 'ask' });
    });

    it('resumes with the payload as the node output', async () => {
      const calls: string[] = [];
      const h = new EngineHarness({ executors: { rest_api_task: recordingExecutor(calls) } });
      await h.run(def);
      const done = await h.run(def, { jobId: 'wf_1_resume_1', resume: { nodeId: 'ask', payload: { ok: true } } });
      expect(done.status).toBe('completed');
      expect(done.outputs['ask']).toEqual({ ok: true });
      expect(done.outputs['b']).toEqual({ echo: { url: 'http://post/true' } });
      expect(calls).toEqual(['a', 'b']);
      // A redelivered resume job finds everything done and repeats nothing.
      const repeat = await h.run(def, { jobId: 'wf_1_resume_1', resume: { nodeId: 'ask', payload: { ok: true } } });
      expect(repeat.status).toBe('completed');
      expect(calls).toEqual(['a', 'b']);
    });
  });

  it('continues from checkpoints: a completed node is not run again', async () => {
    const calls: string[] = [];
    const h = new EngineHarness({ executors: { rest_api_task: recordingExecutor(calls) } });
    const def = definition([startNode(), taskNode('a', 'rest_api_task', { url: 'u' }), taskNode('b', 'rest_api_task', { url: 'v/{{a.id}}' })], chain('start', 'a', 'b'));
    await h.checkpoints.saveTerminal('execution:1', 'wf_1', {
      nodeId: 'a',
      taskType: 'rest_api_task',
      status: 'completed',
      output: { id: 42 },
      error: null,
      errorType: null,
      correlationToken: null,
      startedAt: new Date(),
      completedAt: new Date(),
      cost: null,
    });
    const out = await h.run(def);
    expect(out.status).toBe('completed');
    expect(calls).toEqual(['b']);
    expect(out.outputs['b']).toEqual({ echo: { url: 'v/42' } });
  });

  it('stops without an outcome on shutdown', async () => {
    const stop = new AbortController();
    const running = deferred();
    const h = new EngineHarness({ executors: { wait_task: async (ctx) => (running.resolve(), await sleep(60_000, ctx.signal), { output: {} }) } });
    const run = h.run(definition([startNode(), taskNode('w', 'wait_task', { endpoint: 'http://x', watch_field: 's' })], chain('start', 'w')), { stopSignal: stop.signal });
    await running.promise;
    stop.abort();
    await expect(within(run, 2000, 'the stop')).rejects.toMatchObject({ name: 'RunAborted', kind: 'shutdown' });
  });

  it('throws (so the job is retried) when a checkpoint cannot be written', async () => {
    const h = new EngineHarness({ executors: { rest_api_task: recordingExecutor([]) } });
    h.checkpoints.failWrites = new Error('database is down');
    await expect(h.run(definition([startNode(), taskNode('a', 'rest_api_task', { url: 'u' })], chain('start', 'a')))).rejects.toThrow('database is down');
  });

  it('reports progress when working nodes start and end', async () => {
    const h = new EngineHarness({ executors: { rest_api_task: recordingExecutor([]) } });
    await h.run(definition([startNode(), taskNode('a', 'rest_api_task', { url: 'u' })], chain('start', 'a')));
    expect(h.progress.map((p) => p.find((s) => s.startsWith('a:')))).toEqual(['a:running', 'a:completed']);
  });
});
