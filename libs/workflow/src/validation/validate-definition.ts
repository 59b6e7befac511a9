import { isPlainObject } from '@docflow/service-kit';
import { DEFAULT_WORKFLOW_LIMITS, type WorkflowLimits } from '../limits';
import { normalizeDefinition } from '../normalize';
import { jsonSchemaProblem } from '../schema/validate-schema';
import { isKnownTaskType } from '../task-types/registry';
import { CONTEXT_NAMES, isContextName } from '../templates';
import { isControlNodeType, TASK_NODE_TYPE, type WorkflowDefinition, type WorkflowEdge, type WorkflowNode } from '../types';
import { findCycles } from './cycles';
import { graphLimitErrors, sizeErrors } from './limit-rules';
import { checkTaskNode } from './task-node-rules';

/**
 * Validates a workflow definition (spec 2.6, 2.8, 4.7) and lists every
 * problem found; an empty list means valid. The definition is normalised
 * first, so activity-style nodes (`type: 'rest_api_task'`) are accepted.
 * `limits` are the documented defaults unless the caller (the processor,
 * from its configuration) says otherwise.
 */
export function validateDefinition(input: unknown, limits: WorkflowLimits = DEFAULT_WORKFLOW_LIMITS): string[] {
  if (!isPlainObject(input)) return ['Workflow definition must be an object'];
  const errors: string[] = [];
  if (!Array.isArray(input['nodes'])) errors.push('Workflow definition must have a nodes array');
  if (!Array.isArray(input['edges'])) errors.push('Workflow definition must have an edges array');
  if (input['input_schema'] !== undefined) errors.push(...inputSchemaErrors(input['input_schema']));
  if (!Array.isArray(input['nodes']) || !Array.isArray(input['edges'])) return errors;
  const oversized = sizeErrors(input['nodes'], input['edges'], limits);
  if (oversized.length) return [...errors, ...oversized];

  const definition = normalizeDefinition(input as WorkflowDefinition);
  const nodes = collectNodes(definition.nodes as unknown[], errors);
  const edges = collectEdges(definition.edges as unknown[], nodes, errors);

  for (const cycle of findCycles([...nodes.keys()], edges)) {
    errors.push(`Cycles are not allowed in the workflow (cycle through nodes: ${cycle.join(', ')})`);
  }
  errors.push(...graphLimitErrors(nodes, edges, limits));
  for (const node of nodes.values()) {
    if (node.type === TASK_NODE_TYPE) {
      errors.push(
        ...checkTaskNode(
          node,
          edges.filter((edge) => edge.source === node.id),
          limits,
        ),
      );
    }
  }
  return errors;
}

function inputSchemaErrors(schema: unknown): string[] {
  if (!isPlainObject(schema)) return ['input_schema must be a JSON Schema object'];
  const errors: string[] = [];
  if (schema['type'] !== 'object') errors.push('input_schema must have type "object"');
  const problem = jsonSchemaProblem(schema);
  if (problem) errors.push(`input_schema is not a valid JSON Schema: ${problem}`);
  return errors;
}

function describeIndex(kind: 'Node' | 'Edge', index: number, id: unknown): string {
  return typeof id === 'string' && id !== '' ? `${kind} ${id}` : `${kind} at index ${index}`;
}

function collectNodes(rawNodes: readonly unknown[], errors: string[]): Map<string, WorkflowNode> {
  const nodes = new Map<string, WorkflowNode>();
  const reportedDuplicates = new Set<string>();
  rawNodes.forEach((raw, index) => {
    if (!isPlainObject(raw)) {
      errors.push(`Node at index ${index} must be an object`);
      return;
    }
    const id = raw['id'];
    if (typeof id !== 'string' || id.trim() === '') {
      errors.push(`Node at index ${index} must have a non-empty string id`);
      return;
    }
    // A node's output is addressed by its id; these names belong to the run's context (spec 2.6).
    if (isContextName(id)) errors.push(`Node ${id}: the id "${id}" is reserved for the run's context (${CONTEXT_NAMES.join(', ')})`);
    if (nodes.has(id)) {
      if (!reportedDuplicates.has(id)) errors.push(`Duplicate node id: ${id}`);
      reportedDuplicates.add(id);
      return;
    }
    const name = describeIndex('Node', index, id);
    const type = raw['type'];
    if (typeof type !== 'string' || type === '') {
      errors.push(`${name} must have a type`);
    } else if (type !== TASK_NODE_TYPE && !isControlNodeType(type) && !isKnownTaskType(type)) {
      errors.push(`${name} has unknown type "${type}" (expected task, start, end, input, output or a task type id)`);
    }
    if (raw['data'] !== undefined && !isPlainObject(raw['data'])) errors.push(`${name}: data must be an object`);
    nodes.set(id, { ...raw, id, type: typeof type === 'string' ? type : '', data: isPlainObject(raw['data']) ? raw['data'] : {} });
  });
  return nodes;
}

function collectEdges(rawEdges: readonly unknown[], nodes: ReadonlyMap<string, WorkflowNode>, errors: string[]): WorkflowEdge[] {
  const edges: WorkflowEdge[] = [];
  const seen = new Set<string>();
  const reportedDuplicates = new Set<string>();
  rawEdges.forEach((raw, index) => {
    if (!isPlainObject(raw)) {
      errors.push(`Edge at index ${index} must be an object`);
      return;
    }
    const id = raw['id'];
    const name = describeIndex('Edge', index, id);
    if (typeof id !== 'string' || id.trim() === '') {
      errors.push(`Edge at index ${index} must have a non-empty string id`);
    } else if (seen.has(id)) {
      if (!reportedDuplicates.has(id)) errors.push(`Duplicate edge id: ${id}`);
      reportedDuplicates.add(id);
    } else {
      seen.add(id);
    }
    let valid = true;
    for (const end of ['source', 'target'] as const) {
      const ref = raw[end];
      if (typeof ref !== 'string' || ref === '') {
        errors.push(`${name} must have a ${end} node id`);
        valid = false;
      } else if (!nodes.has(ref)) {
        errors.push(`${name} references a non-existent ${end} node ${ref}`);
        valid = false;
      }
    }
    if (valid) edges.push({ ...raw, id: typeof id === 'string' ? id : `#${index}`, source: raw['source'] as string, target: raw['target'] as string });
  });
  return edges;
}
