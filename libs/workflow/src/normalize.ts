import { isPlainObject } from '@docflow/service-kit';
import { getTaskType } from './task-types/registry';
import { CONTROL_TASK_TYPE, isControlNodeType, TASK_NODE_TYPE, type WorkflowDefinition } from './types';

/**
 * Brings a definition into the shape the processor runs (spec 2.6), without
 * touching the given one (the nodes it changes are copied, with their data;
 * everything else is shared with the input):
 * - a node whose `type` is a task type id (`rest_api_task`, `decision`...) becomes
 *   `type: 'task'` with that id in `data.task_type` (an explicit `data.task_type` wins);
 * - `start`, `end`, `input` and `output` nodes stay control nodes with
 *   `task_type: 'custom_task'` and an empty config unless they carry their own;
 * - everything else (including malformed nodes) is kept unchanged, for
 *   validateDefinition to report.
 * Idempotent. It runs on every create, execute and job, so it copies only
 * what it changes: a deep copy of the whole definition cost more than the
 * rest of a short run.
 */
export function normalizeDefinition<T extends WorkflowDefinition>(definition: T): T {
  if (!Array.isArray(definition.nodes)) return { ...definition };
  const nodes = (definition.nodes as unknown[]).map((node) => {
    if (!isPlainObject(node)) return node;
    const type = node['type'];
    const rawData = node['data'];
    if (rawData !== undefined && !isPlainObject(rawData)) return node;
    if (isControlNodeType(type)) {
      const data: Record<string, unknown> = { ...(rawData ?? {}) };
      if (!hasText(data['task_type'])) data['task_type'] = CONTROL_TASK_TYPE;
      if (data['config'] === undefined) data['config'] = {};
      return { ...node, data };
    }
    if (type !== TASK_NODE_TYPE && getTaskType(type) !== undefined) {
      const data: Record<string, unknown> = { ...(rawData ?? {}) };
      if (!hasText(data['task_type'])) data['task_type'] = type;
      return { ...node, type: TASK_NODE_TYPE, data };
    }
    return node;
  });
  return { ...definition, nodes };
}

function hasText(value: unknown): boolean {
  return typeof value === 'string' && value.trim() !== '';
}
