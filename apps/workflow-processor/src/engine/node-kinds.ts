import { CONTROL_TASK_TYPE, getTaskType, isDecisionNode, isPlainObject, isTaskNode, type WorkflowGraph, type WorkflowNode } from '@docflow/workflow';

/** The executor id of a node: its registry id for task nodes (aliases resolved), custom_task for control nodes. */
export function executorIdOf(node: WorkflowNode): string {
  if (!isTaskNode(node)) return CONTROL_TASK_TYPE;
  const entry = getTaskType(node.data.task_type);
  return entry ? entry.id : String(node.data.task_type ?? '');
}

/**
 * Task nodes that do work (everything but decisions): checkpointed after
 * they end, reported in progress messages. Control and decision nodes are
 * deterministic and cheap, and are simply recomputed on a redelivery.
 */
export function doesWork(node: WorkflowNode): boolean {
  return isTaskNode(node) && !isDecisionNode(node);
}

export function isUserInputNode(node: WorkflowNode): boolean {
  return isTaskNode(node) && executorIdOf(node) === 'user_input_task';
}

/** Whether a run of this graph needs the checkpoint table at all. */
export function needsCheckpoints(graph: WorkflowGraph): boolean {
  for (const node of graph.nodes.values()) if (doesWork(node)) return true;
  return false;
}

/** Whether a run of this graph may have parked nodes: a wait_task, or a node with a `retry` policy (issue #15 item 3). */
export function mayPark(graph: WorkflowGraph): boolean {
  for (const node of graph.nodes.values()) {
    if (!doesWork(node)) continue;
    if (executorIdOf(node) === 'wait_task') return true;
    if (isPlainObject(node.data.config) && node.data.config['retry'] !== undefined) return true;
  }
  return false;
}
