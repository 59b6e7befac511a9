import type { TaskState } from '@docflow/contracts';
import type { WorkflowGraph } from '@docflow/workflow';
import type { NodeCheckpoint } from '../checkpoints/checkpoint-store';

/** Every node of the graph as `pending`, with its task type and label. */
export function initialTaskStates(graph: WorkflowGraph): Record<string, TaskState> {
  const states: Record<string, TaskState> = {};
  for (const id of graph.order) {
    const node = graph.nodes.get(id);
    if (!node) continue;
    const taskType = typeof node.data.task_type === 'string' && node.data.task_type !== '' ? node.data.task_type : node.type;
    const label = typeof node.data.label === 'string' && node.data.label !== '' ? node.data.label : id;
    states[id] = { status: 'pending', task_type: taskType, label, result: null, error: null };
  }
  return states;
}

/** The task-state fields a completed or failed checkpoint stands for. */
export function checkpointState(cp: NodeCheckpoint): Partial<TaskState> {
  const failed = cp.status === 'failed';
  return {
    status: failed ? 'failed' : 'completed',
    result: cp.output ?? null,
    error: failed ? (cp.error ?? 'node failed') : null,
    error_type: failed ? (cp.errorType ?? 'internal_error') : undefined,
    started_at: cp.startedAt.toISOString(),
    completed_at: (cp.completedAt ?? cp.startedAt).toISOString(),
    cost: cp.cost ?? undefined,
  };
}
