import type { JsonSchema } from '../components/SchemaForm';
import type { WorkflowDefinition, WorkflowEdge, WorkflowNode } from './types';

/** Pure helpers of the editor (kept apart from React so they read as rules). */

export function blankDefinition(): WorkflowDefinition {
  return {
    input_schema: { type: 'object', properties: {}, required: [] },
    nodes: [
      { id: 'start', type: 'start', position: { x: 0, y: 0 }, data: { label: 'Start', task_type: 'custom_task', config: {} } },
      { id: 'end', type: 'end', position: { x: 600, y: 0 }, data: { label: 'End', task_type: 'custom_task', config: {} } },
    ],
    edges: [],
  };
}

/** A fresh id from a task type: `decision` → `decision_1`, `email_send_task` → `email_send_1`. */
export function nextNodeId(taskType: string, nodes: readonly WorkflowNode[]): string {
  const base = taskType.replace(/_task$/, '');
  const taken = new Set(nodes.map((n) => n.id));
  for (let i = 1; ; i++) if (!taken.has(`${base}_${i}`)) return `${base}_${i}`;
}

export function nextEdgeId(edges: readonly WorkflowEdge[]): string {
  const taken = new Set(edges.map((e) => e.id));
  for (let i = 1; ; i++) if (!taken.has(`e${i}`)) return `e${i}`;
}

/** Renames a node and every edge end that names it; refuses an empty or taken id. */
export function renameNode(def: WorkflowDefinition, from: string, to: string): WorkflowDefinition | string {
  const id = to.trim();
  if (!/^[A-Za-z0-9_-]+$/.test(id)) return 'A node id holds letters, digits, _ and - only';
  if (id !== from && def.nodes.some((n) => n.id === id)) return `Another node is already called ${id}`;
  return {
    ...def,
    nodes: def.nodes.map((n) => (n.id === from ? { ...n, id } : n)),
    edges: def.edges.map((e) => ({ ...e, source: e.source === from ? id : e.source, target: e.target === from ? id : e.target })),
  };
}

/** The validation problems (POST /workflows/validate) that name a node, by node id. */
export function problemsByNode(errors: readonly string[], nodes: readonly WorkflowNode[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const err of errors) {
    for (const n of nodes) {
      const escaped = n.id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      if (new RegExp(`(^|[^A-Za-z0-9_-])${escaped}([^A-Za-z0-9_-]|$)`).test(err)) out.set(n.id, [...(out.get(n.id) ?? []), err]);
    }
  }
  return out;
}

/** The labels a decision node's outgoing edges must carry (spec 2.8). */
export function decisionLabels(node: WorkflowNode | undefined): string[] {
  if (!node || !['decision', 'decision_task'].includes(node.data.task_type)) return [];
  const c = node.data.config;
  return [String(c['true_label'] ?? 'true'), String(c['false_label'] ?? 'false')];
}

export type FieldType = 'string' | 'number' | 'integer' | 'boolean';
export interface InputField {
  name: string;
  type: FieldType;
  required: boolean;
}

export function inputFields(def: WorkflowDefinition): InputField[] {
  const s = def.input_schema;
  const required = new Set(s?.required ?? []);
  return Object.entries(s?.properties ?? {}).map(([name, p]: [string, JsonSchema]) => ({ name, type: (typeof p.type === 'string' ? p.type : 'string') as FieldType, required: required.has(name) }));
}

export function withInputFields(def: WorkflowDefinition, fields: readonly InputField[]): WorkflowDefinition {
  const named = fields.filter((f) => f.name.trim() !== '');
  return {
    ...def,
    input_schema: {
      ...(def.input_schema ?? {}),
      type: 'object',
      properties: Object.fromEntries(named.map((f) => [f.name.trim(), { type: f.type }])),
      required: named.filter((f) => f.required).map((f) => f.name.trim()),
    },
  };
}
