import type { TaskStatus, WorkflowDefinition } from '../types';
import { buildGraph, isDecisionNode, isTaskNode, WorkflowGraphError, type WorkflowGraph } from './build-graph';
import { isFinished, nextSteps, statusOf, takenBranch, type NodeRunState } from './plan';

type Edge = [id: string, source: string, target: string, label?: string];

function graphOf(nodes: Array<[id: string, type: string]>, edges: Edge[]): WorkflowGraph {
  const definition: WorkflowDefinition = {
    nodes: nodes.map(([id, type]) => ({ id, type, data: type === 'decision' ? { config: { operator: '==', left_operand: 1, right_operand: 1 } } : {} })),
    edges: edges.map(([id, source, target, label]) => ({ id, source, target, ...(label ? { label } : {}) })),
  };
  return buildGraph(definition);
}

/** Drives the planner like the engine would: runs every runnable node, decisions take `branches[id]`. */
function simulate(graph: WorkflowGraph, branches: Record<string, string> = {}, fail?: string) {
  const states: Record<string, NodeRunState> = {};
  const batches: string[][] = [];
  for (let round = 0; round < 100 && !isFinished(graph, states); round += 1) {
    const { runnable, skipped } = nextSteps(graph, states);
    for (const id of skipped) states[id] = { status: 'skipped' };
    if (runnable.length === 0 && skipped.length === 0) break;
    if (runnable.length > 0) batches.push(runnable);
    for (const id of runnable) {
      expect(states[id]).toBeUndefined();
      states[id] = id === fail ? { status: 'failed' } : { status: 'completed', ...(branches[id] ? { branch: branches[id] } : {}) };
    }
  }
  const final = Object.fromEntries(graph.order.map((id) => [id, statusOf(states, id)]));
  return { batches, final, finished: isFinished(graph, states) };
}

describe('buildGraph', () => {
  it('indexes edges and orders nodes topologically, definition order among independent ones', () => {
    const graph = graphOf(
      [
        ['end', 'end'],
        ['b', 'rest_api_task'],
        ['a', 'rest_api_task'],
        ['start', 'start'],
      ],
      [
        ['e1', 'start', 'a'],
        ['e2', 'start', 'b'],
        ['e3', 'a', 'end'],
        ['e4', 'b', 'end'],
        ['e5', 'b', 'end'],
      ],
    );
    expect(graph.order).toEqual(['start', 'b', 'a', 'end']);
    expect(graph.incoming.get('end')?.map((e) => e.id)).toEqual(['e3', 'e4', 'e5']);
    expect(graph.outgoing.get('start')?.map((e) => e.id)).toEqual(['e1', 'e2']);
    expect(graph.successors.get('b')).toEqual(['end']);
    expect(graph.predecessors.get('end')).toEqual(['a', 'b']);
  });

  it('normalises nodes so task types in `type` become task nodes', () => {
    const graph = graphOf(
      [
        ['s', 'start'],
        ['d', 'decision_task'],
        ['r', 'rest_api_task'],
      ],
      [],
    );
    expect(graph.nodes.get('r')).toMatchObject({ type: 'task', data: { task_type: 'rest_api_task' } });
    expect(isTaskNode(graph.nodes.get('r')!)).toBe(true);
    expect(isTaskNode(graph.nodes.get('s')!)).toBe(false);
    expect(isDecisionNode(graph.nodes.get('d'))).toBe(true);
    expect(isDecisionNode(graph.nodes.get('r'))).toBe(false);
  });

  it('throws on cycles, dangling edges and duplicate ids', () => {
    expect(() =>
      graphOf(
        [
          ['a', 'start'],
          ['b', 'end'],
        ],
        [
          ['e1', 'a', 'b'],
          ['e2', 'b', 'a'],
        ],
      ),
    ).toThrow(new WorkflowGraphError('Cycles are not allowed in the workflow (nodes involved: a, b)'));
    expect(() => graphOf([['a', 'start']], [['e1', 'a', 'x']])).toThrow('Edge e1 references a non-existent target node x');
    expect(() => graphOf([['a', 'start']], [['e1', 'x', 'a']])).toThrow('Edge e1 references a non-existent source node x');
    expect(() =>
      graphOf(
        [
          ['a', 'start'],
          ['a', 'end'],
        ],
        [],
      ),
    ).toThrow('Duplicate node id: a');
  });
});

describe('nextSteps', () => {
  it('starts with the nodes that have no incoming edge', () => {
    const graph = graphOf(
      [
        ['s', 'start'],
        ['a', 'rest_api_task'],
        ['lonely', 'rest_api_task'],
      ],
      [['e1', 's', 'a']],
    );
    expect(nextSteps(graph, {})).toEqual({ runnable: ['s', 'lonely'], skipped: [] });
  });

  it('runs a linear chain one node at a time and does not repeat running or completed nodes', () => {
    const graph = graphOf(
      [
        ['s', 'start'],
        ['a', 'rest_api_task'],
        ['e', 'end'],
      ],
      [
        ['e1', 's', 'a'],
        ['e2', 'a', 'e'],
      ],
    );
    expect(nextSteps(graph, { s: 'completed' })).toEqual({ runnable: ['a'], skipped: [] });
    expect(nextSteps(graph, { s: 'completed', a: 'running' })).toEqual({ runnable: [], skipped: [] });
    expect(nextSteps(graph, { s: { status: 'completed' }, a: { status: 'completed' } })).toEqual({ runnable: ['e'], skipped: [] });
    expect(simulate(graph).batches).toEqual([['s'], ['a'], ['e']]);
  });

  it('returns independent branches together so they can run concurrently', () => {
    const graph = graphOf(
      [
        ['s', 'start'],
        ['a', 'rest_api_task'],
        ['b', 'email_send_task'],
        ['c', 'llm_task'],
        ['j', 'end'],
      ],
      [
        ['e1', 's', 'a'],
        ['e2', 's', 'b'],
        ['e3', 's', 'c'],
        ['e4', 'a', 'j'],
        ['e5', 'b', 'j'],
        ['e6', 'c', 'j'],
      ],
    );
    expect(nextSteps(graph, { s: 'completed' }).runnable).toEqual(['a', 'b', 'c']);
    expect(nextSteps(graph, { s: 'completed', a: 'completed', b: 'completed', c: 'running' }).runnable).toEqual([]);
    expect(simulate(graph).batches).toEqual([['s'], ['a', 'b', 'c'], ['j']]);
  });

  it('runs the join of a diamond once, after both sides', () => {
    const graph = graphOf(
      [
        ['a', 'start'],
        ['b', 'rest_api_task'],
        ['c', 'rest_api_task'],
        ['d', 'rest_api_task'],
        ['e', 'end'],
      ],
      [
        ['e1', 'a', 'b'],
        ['e2', 'a', 'c'],
        ['e3', 'b', 'd'],
        ['e4', 'c', 'd'],
        ['e5', 'd', 'e'],
        ['e6', 'b', 'e'],
      ],
    );
    expect(nextSteps(graph, { a: 'completed', b: 'completed' }).runnable).toEqual(['c']);
    const run = simulate(graph);
    expect(run.batches).toEqual([['a'], ['b', 'c'], ['d'], ['e']]);
    expect(run.finished).toBe(true);
  });

  describe('decisions', () => {
    // s -> d; d -true-> t1 -> t2 -> j; d -false-> f1 -> j; j -> end
    const graph = graphOf(
      [
        ['s', 'start'],
        ['d', 'decision'],
        ['t1', 'rest_api_task'],
        ['t2', 'rest_api_task'],
        ['f1', 'email_send_task'],
        ['j', 'llm_task'],
        ['end', 'end'],
      ],
      [
        ['e1', 's', 'd'],
        ['e2', 'd', 't1', 'true'],
        ['e3', 't1', 't2'],
        ['e4', 'd', 'f1', 'false'],
        ['e5', 't2', 'j'],
        ['e6', 'f1', 'j'],
        ['e7', 'j', 'end'],
      ],
    );

    it('runs the true branch, skips the false branch, and converges once', () => {
      expect(nextSteps(graph, { s: 'completed', d: { status: 'completed', branch: 'true' } })).toEqual({ runnable: ['t1'], skipped: ['f1'] });
      const run = simulate(graph, { d: 'true' });
      expect(run.batches).toEqual([['s'], ['d'], ['t1'], ['t2'], ['j'], ['end']]);
      expect(run.final).toEqual({ s: 'completed', d: 'completed', t1: 'completed', t2: 'completed', f1: 'skipped', j: 'completed', end: 'completed' });
      expect(run.finished).toBe(true);
    });

    it('runs the false branch and cascades the skip down the true branch', () => {
      expect(nextSteps(graph, { s: 'completed', d: { status: 'completed', branch: 'false' } })).toEqual({ runnable: ['f1'], skipped: ['t1', 't2'] });
      const run = simulate(graph, { d: 'false' });
      expect(run.batches).toEqual([['s'], ['d'], ['f1'], ['j'], ['end']]);
      expect(run.final).toMatchObject({ t1: 'skipped', t2: 'skipped', f1: 'completed', j: 'completed' });
    });

    it('reads the branch from a task_states result (branch or active_path)', () => {
      const fromResult = { s: { status: 'completed' as TaskStatus }, d: { status: 'completed' as TaskStatus, result: { result: false, branch: 'false' } } };
      expect(nextSteps(graph, fromResult).runnable).toEqual(['f1']);
      const fromPath = { s: 'completed' as TaskStatus, d: { status: 'completed' as TaskStatus, result: { active_path: 'true' } } };
      expect(nextSteps(graph, fromPath).runnable).toEqual(['t1']);
      expect(takenBranch(fromPath, 'd')).toBe('true');
      expect(takenBranch({ d: 'completed' }, 'd')).toBeUndefined();
    });

    it('skips everything downstream when a completed decision has no known branch', () => {
      expect(nextSteps(graph, { s: 'completed', d: 'completed' })).toEqual({ runnable: [], skipped: ['t1', 't2', 'f1', 'j', 'end'] });
    });

    it('matches custom labels and sourceHandles without regard to case', () => {
      const custom = buildGraph({
        nodes: [
          { id: 'd', type: 'decision', data: { config: { true_label: 'Approve', false_label: 'Reject' } } },
          { id: 'ok', type: 'task', data: { task_type: 'email_send_task' } },
          { id: 'no', type: 'task', data: { task_type: 'email_send_task' } },
        ],
        edges: [
          { id: 'e1', source: 'd', target: 'ok', sourceHandle: 'approve' },
          { id: 'e2', source: 'd', target: 'no', label: 'Nope', sourceHandle: 'REJECT' },
        ],
      });
      expect(nextSteps(custom, { d: { status: 'completed', branch: 'Approve' } })).toEqual({ runnable: ['ok'], skipped: ['no'] });
      expect(nextSteps(custom, { d: { status: 'completed', branch: 'Reject' } })).toEqual({ runnable: ['no'], skipped: ['ok'] });
    });

    it('skips a join whose every incoming path is inactive, even across two decisions', () => {
      // d1 -true-> a -> j ; d1 -false-> d2 ; d2 -true-> b -> j ; d2 -false-> c
      const two = graphOf(
        [
          ['d1', 'decision'],
          ['a', 'rest_api_task'],
          ['d2', 'decision'],
          ['b', 'rest_api_task'],
          ['c', 'rest_api_task'],
          ['j', 'end'],
        ],
        [
          ['e1', 'd1', 'a', 'true'],
          ['e2', 'd1', 'd2', 'false'],
          ['e3', 'd2', 'b', 'true'],
          ['e4', 'd2', 'c', 'false'],
          ['e5', 'a', 'j'],
          ['e6', 'b', 'j'],
        ],
      );
      const run = simulate(two, { d1: 'false', d2: 'false' });
      expect(run.batches).toEqual([['d1'], ['d2'], ['c']]);
      expect(run.final).toEqual({ d1: 'completed', a: 'skipped', d2: 'completed', b: 'skipped', c: 'completed', j: 'skipped' });
      expect(run.finished).toBe(true);
      expect(simulate(two, { d1: 'false', d2: 'true' }).final).toMatchObject({ b: 'completed', c: 'skipped', j: 'completed' });
    });

    it('treats a decision edge directly into the join like any other path', () => {
      // d -true-> x -> j ; d -false-> j
      const direct = graphOf(
        [
          ['d', 'decision'],
          ['x', 'rest_api_task'],
          ['j', 'end'],
        ],
        [
          ['e1', 'd', 'x', 'true'],
          ['e2', 'd', 'j', 'false'],
          ['e3', 'x', 'j'],
        ],
      );
      expect(simulate(direct, { d: 'true' }).batches).toEqual([['d'], ['x'], ['j']]);
      expect(simulate(direct, { d: 'false' }).final).toEqual({ d: 'completed', x: 'skipped', j: 'completed' });
    });
  });

  it('stops scheduling after a failure; pending nodes stay pending', () => {
    const graph = graphOf(
      [
        ['s', 'start'],
        ['a', 'rest_api_task'],
        ['b', 'rest_api_task'],
        ['j', 'end'],
      ],
      [
        ['e1', 's', 'a'],
        ['e2', 's', 'b'],
        ['e3', 'a', 'j'],
        ['e4', 'b', 'j'],
      ],
    );
    expect(nextSteps(graph, { s: 'completed', a: 'failed' })).toEqual({ runnable: [], skipped: [] });
    const run = simulate(graph, {}, 'a');
    expect(run.final).toEqual({ s: 'completed', a: 'failed', b: 'completed', j: 'pending' });
    expect(run.finished).toBe(true);
  });
});

describe('isFinished', () => {
  const graph = graphOf(
    [
      ['a', 'start'],
      ['b', 'rest_api_task'],
      ['c', 'end'],
    ],
    [
      ['e1', 'a', 'b'],
      ['e2', 'b', 'c'],
    ],
  );

  it('is true only when every node is completed or skipped, or a node failed and none runs', () => {
    expect(isFinished(graph, {})).toBe(false);
    expect(isFinished(graph, { a: 'completed', b: 'completed' })).toBe(false);
    expect(isFinished(graph, { a: 'completed', b: 'skipped', c: 'skipped' })).toBe(true);
    expect(isFinished(graph, { a: 'completed', b: 'completed', c: 'completed' })).toBe(true);
    expect(isFinished(graph, { a: 'failed' })).toBe(true);
    expect(isFinished(graph, { a: 'failed', b: 'running' })).toBe(false);
  });

  it('ignores states of unknown ids and inherited keys', () => {
    expect(statusOf({}, 'toString')).toBe('pending');
    expect(isFinished(graph, { a: 'completed', b: 'completed', c: 'completed', ghost: 'running' })).toBe(true);
  });
});
