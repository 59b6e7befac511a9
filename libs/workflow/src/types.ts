/**
 * Shapes of a workflow definition (spec 2.6) and of the per-node run state
 * (spec 3.3). Definitions arrive as untrusted JSON, so every function of this
 * library that takes one also copes with values that do not match these types.
 */

export type JsonSchema = Record<string, unknown>;

export interface WorkflowNodeData {
  label?: string;
  task_type?: string;
  config?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface WorkflowNode {
  id: string;
  type: string;
  position?: { x: number; y: number };
  data: WorkflowNodeData;
  [key: string]: unknown;
}

export interface WorkflowEdge {
  id: string;
  source: string;
  target: string;
  sourceHandle?: string | null;
  label?: string | null;
  [key: string]: unknown;
}

export interface WorkflowDefinition {
  nodes: WorkflowNode[];
  edges: WorkflowEdge[];
  input_schema?: JsonSchema;
  [key: string]: unknown;
}

/** Node types that never run anything (spec 2.6): they complete as no-ops. */
export const CONTROL_NODE_TYPES = ['start', 'end', 'input', 'output'] as const;
export type ControlNodeType = (typeof CONTROL_NODE_TYPES)[number];

/** The node type the processor runs; the specific kind is `data.task_type`. */
export const TASK_NODE_TYPE = 'task';

/** The task type carried by control nodes (spec 2.6). */
export const CONTROL_TASK_TYPE = 'custom_task';

/** Task states inside an execution (spec 3.3); mirrors `TASK_STATUSES` of `@docflow/contracts`. */
export const TASK_STATUSES = ['pending', 'running', 'completed', 'failed', 'skipped'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

export const TERMINAL_TASK_STATUSES: readonly TaskStatus[] = ['completed', 'failed', 'skipped'];

export function isControlNodeType(type: unknown): type is ControlNodeType {
  return typeof type === 'string' && (CONTROL_NODE_TYPES as readonly string[]).includes(type);
}

export function isTerminalStatus(status: TaskStatus): boolean {
  return TERMINAL_TASK_STATUSES.includes(status);
}

/**
 * Re-exported for the callers that import it from here; the one definition
 * lives in libs/service-kit.
 */
export { isPlainObject } from '@docflow/service-kit';

/** Keys that must never be read through or written into objects built from user data. */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);
