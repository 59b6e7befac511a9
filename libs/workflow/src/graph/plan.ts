import { isPlainObject } from '@docflow/service-kit';
import { edgeMatchesBranch } from '../decision/branch-edges';
import { type TaskStatus, type WorkflowEdge } from '../types';
import { isDecisionNode, type WorkflowGraph } from './build-graph';

/**
 * What the engine knows about a node. A bare status is accepted too. For a
 * completed decision node the taken branch label comes from `branch`, else
 * from `result.branch` / `result.active_path` (so task_states can be passed as is).
 */
export interface NodeRunState {
  status: TaskStatus;
  branch?: string | null;
  result?: unknown;
}

export type RunStates = Readonly<Record<string, NodeRunState | TaskStatus | undefined>>;

export interface NextSteps {
  /** Nodes to start now, in topological order; independent ones may run concurrently. */
  runnable: string[];
  /** Nodes to mark `skipped` now (the whole downstream of inactive branches, already cascaded). */
  skipped: string[];
}

type EdgeState = 'waiting' | 'active' | 'inactive';

export function statusOf(states: RunStates, id: string): TaskStatus {
  const state = Object.prototype.hasOwnProperty.call(states, id) ? states[id] : undefined;
  if (state === undefined) return 'pending';
  return typeof state === 'string' ? state : state.status;
}

/** The branch label a completed decision node took, if known. */
export function takenBranch(states: RunStates, id: string): string | undefined {
  const state = Object.prototype.hasOwnProperty.call(states, id) ? states[id] : undefined;
  if (state === undefined || typeof state === 'string') return undefined;
  if (typeof state.branch === 'string') return state.branch;
  const result = state.result;
  if (isPlainObject(result)) {
    if (typeof result['branch'] === 'string') return result['branch'];
    if (typeof result['active_path'] === 'string') return result['active_path'];
  }
  return undefined;
}

function edgeState(graph: WorkflowGraph, edge: WorkflowEdge, status: (id: string) => TaskStatus, states: RunStates): EdgeState {
  const sourceStatus = status(edge.source);
  switch (sourceStatus) {
    case 'pending':
    case 'running':
      return 'waiting';
    case 'skipped':
    case 'failed':
      return 'inactive';
    case 'completed': {
      if (!isDecisionNode(graph.nodes.get(edge.source))) return 'active';
      const branch = takenBranch(states, edge.source);
      return branch !== undefined && edgeMatchesBranch(edge, branch) ? 'active' : 'inactive';
    }
    default: {
      const never: never = sourceStatus;
      throw new Error(`unknown task status ${String(never)}`);
    }
  }
}

/**
 * Decides what happens next (spec 2.8 rule 2, 3.3). A pending node is
 * runnable when every incoming edge is settled (its source is completed,
 * failed or skipped) and at least one is active; it is skipped when every
 * incoming edge is inactive (source skipped, or a decision edge of the branch
 * not taken). Converging paths therefore run their join node once, after all
 * of its predecessors settled. Skips cascade within one call.
 *
 * Failure is fail-fast: once any node failed nothing more is scheduled and
 * the remaining nodes stay pending.
 */
export function nextSteps(graph: WorkflowGraph, states: RunStates): NextSteps {
  const working = new Map<string, TaskStatus>(graph.order.map((id) => [id, statusOf(states, id)]));
  if ([...working.values()].includes('failed')) return { runnable: [], skipped: [] };
  const status = (id: string): TaskStatus => working.get(id) ?? 'pending';
  const runnable: string[] = [];
  const skipped: string[] = [];
  for (const id of graph.order) {
    if (status(id) !== 'pending') continue;
    const incoming = graph.incoming.get(id) ?? [];
    if (incoming.length === 0) {
      runnable.push(id);
      continue;
    }
    const edgeStates = incoming.map((edge) => edgeState(graph, edge, status, states));
    if (edgeStates.includes('waiting')) continue;
    if (edgeStates.includes('active')) {
      runnable.push(id);
    } else {
      skipped.push(id);
      working.set(id, 'skipped');
    }
  }
  return { runnable, skipped };
}

/**
 * Whether the execution has nothing left to do: no node is running, and
 * either a node failed (fail-fast) or every node is completed or skipped.
 */
export function isFinished(graph: WorkflowGraph, states: RunStates): boolean {
  const statuses = graph.order.map((id) => statusOf(states, id));
  if (statuses.includes('running')) return false;
  if (statuses.includes('failed')) return true;
  return statuses.every((s) => s === 'completed' || s === 'skipped');
}
