import { getTaskType } from './task-types/registry';
import { CONTROL_TASK_TYPE, isControlNodeType, isPlainObject, TASK_NODE_TYPE, type WorkflowDefinition } from './types';

/**
 * Brings a definition into the shape the processor runs (spec 2.6), on a deep copy:
 * - a node whose `type` is a task type id (`rest_api_task`, `decision`...) becomes
 *   `type: 'task'` with that id in `data.task_type` (an explicit `data.task_type` wins);
 * - `start`, `end`, `input` and `output` nodes stay control nodes with
 *   `task_type: 'custom_task'` and an empty config unless they carry their own;
 * - everything else (including malformed nodes) is copied unchanged, for
 *   validateDefinition to report.
 * Idempotent.
 */
export function normalizeDefinition<T extends WorkflowDefinition>(definition: T): T {
  const copy = structuredClone(definition);
  if (!Array.isArray(copy.nodes)) return copy;
  for (const node of copy.nodes as unknown[]) {
    if (!isPlainObject(node)) continue;
    const type = node['type'];
    const rawData = node['data'];
    if (rawData !== undefined && !isPlainObject(rawData)) continue;
    const data: Record<string, unknown> = rawData ?? {};
    if (isControlNodeType(type)) {
      if (!hasText(data['task_type'])) data['task_type'] = CONTROL_TASK_TYPE;
      if (data['config'] === undefined) data['config'] = {};
      node['data'] = data;
    } else if (type !== TASK_NODE_TYPE && getTaskType(type) !== undefined) {
      node['type'] = TASK_NODE_TYPE;
      if (!hasText(data['task_type'])) data['task_type'] = type;
      node['data'] = data;
    }
  }
  return copy;
}

function hasText(value: unknown): boolean {
  return typeof value === 'string' && value.trim() !== '';
}
