import { isDecisionTaskType } from '../decision/decision-config';
import { normalizeDefinition } from '../normalize';
import { TASK_NODE_TYPE, type WorkflowDefinition, type WorkflowEdge, type WorkflowNode } from '../types';

/** The definition cannot be planned (it would also fail validateDefinition). */
export class WorkflowGraphError extends Error {
  override readonly name = 'WorkflowGraphError';
}

export interface WorkflowGraph {
  /** Nodes by id, normalised (`type: 'task'` + `data.task_type`). */
  readonly nodes: ReadonlyMap<string, WorkflowNode>;
  /** Topological order; among independent nodes, definition order. */
  readonly order: readonly string[];
  readonly incoming: ReadonlyMap<string, readonly WorkflowEdge[]>;
  readonly outgoing: ReadonlyMap<string, readonly WorkflowEdge[]>;
  /** Distinct successor ids of each node. */
  readonly successors: ReadonlyMap<string, readonly string[]>;
  /** Distinct predecessor ids of each node. */
  readonly predecessors: ReadonlyMap<string, readonly string[]>;
}

/** Whether the processor runs this node (spec 2.6); other nodes complete as no-ops. */
export function isTaskNode(node: WorkflowNode): boolean {
  return node.type === TASK_NODE_TYPE;
}

export function isDecisionNode(node: WorkflowNode | undefined): boolean {
  return node !== undefined && isTaskNode(node) && isDecisionTaskType(node.data.task_type);
}

/**
 * Indexes a definition for the engine. Normalises it first; throws
 * WorkflowGraphError on a duplicate node id, an edge to a missing node or a
 * cycle (run validateDefinition first for the full list of problems).
 */
export function buildGraph(definition: WorkflowDefinition): WorkflowGraph {
  const normalized = normalizeDefinition(definition);
  if (!Array.isArray(normalized.nodes) || !Array.isArray(normalized.edges)) {
    throw new WorkflowGraphError('Workflow definition must have nodes and edges arrays');
  }
  const nodes = new Map<string, WorkflowNode>();
  for (const node of normalized.nodes) {
    if (nodes.has(node.id)) throw new WorkflowGraphError(`Duplicate node id: ${node.id}`);
    nodes.set(node.id, { ...node, data: node.data ?? {} });
  }
  const incoming = new Map<string, WorkflowEdge[]>([...nodes.keys()].map((id) => [id, []]));
  const outgoing = new Map<string, WorkflowEdge[]>([...nodes.keys()].map((id) => [id, []]));
  for (const edge of normalized.edges) {
    const from = outgoing.get(edge.source);
    const to = incoming.get(edge.target);
    if (!from) throw new WorkflowGraphError(`Edge ${edge.id} references a non-existent source node ${edge.source}`);
    if (!to) throw new WorkflowGraphError(`Edge ${edge.id} references a non-existent target node ${edge.target}`);
    from.push(edge);
    to.push(edge);
  }
  const unique = (ids: string[]) => [...new Set(ids)];
  const successors = new Map([...outgoing].map(([id, edges]) => [id, unique(edges.map((e) => e.target))]));
  const predecessors = new Map([...incoming].map(([id, edges]) => [id, unique(edges.map((e) => e.source))]));
  return { nodes, order: topologicalOrder([...nodes.keys()], successors, predecessors), incoming, outgoing, successors, predecessors };
}

/** Kahn's algorithm; always picks the ready node that comes first in the definition. */
function topologicalOrder(ids: readonly string[], successors: ReadonlyMap<string, readonly string[]>, predecessors: ReadonlyMap<string, readonly string[]>): string[] {
  const position = new Map(ids.map((id, i) => [id, i]));
  const remaining = new Map(ids.map((id) => [id, predecessors.get(id)?.length ?? 0]));
  const ready = ids.filter((id) => remaining.get(id) === 0);
  const order: string[] = [];
  while (ready.length > 0) {
    ready.sort((a, b) => (position.get(a) ?? 0) - (position.get(b) ?? 0));
    const id = ready.shift() as string;
    order.push(id);
    for (const next of successors.get(id) ?? []) {
      const left = (remaining.get(next) ?? 0) - 1;
      remaining.set(next, left);
      if (left === 0) ready.push(next);
    }
  }
  if (order.length !== ids.length) {
    const stuck = ids.filter((id) => !order.includes(id));
    throw new WorkflowGraphError(`Cycles are not allowed in the workflow (nodes involved: ${stuck.join(', ')})`);
  }
  return order;
}
