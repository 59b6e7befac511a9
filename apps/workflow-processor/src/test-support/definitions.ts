/** Small builders for workflow definitions in tests. */

export interface TestNode {
  id: string;
  type: string;
  position: { x: number; y: number };
  data: { label: string; task_type: string; config: Record<string, unknown> };
}

export interface TestEdge {
  id: string;
  source: string;
  target: string;
  label?: string;
}

export function startNode(id = 'start'): TestNode {
  return { id, type: 'start', position: { x: 0, y: 0 }, data: { label: 'Start', task_type: 'custom_task', config: {} } };
}

export function endNode(id = 'end'): TestNode {
  return { id, type: 'end', position: { x: 0, y: 0 }, data: { label: 'End', task_type: 'custom_task', config: {} } };
}

export function taskNode(id: string, taskType: string, config: Record<string, unknown> = {}): TestNode {
  return { id, type: 'task', position: { x: 0, y: 0 }, data: { label: `Node ${id}`, task_type: taskType, config } };
}

export function edge(source: string, target: string, label?: string): TestEdge {
  return { id: `${source}->${target}`, source, target, ...(label !== undefined ? { label } : {}) };
}

/** Edges through `ids` in order. */
export function chain(...ids: string[]): TestEdge[] {
  return ids.slice(1).map((id, i) => edge(ids[i] as string, id));
}

export function definition(nodes: TestNode[], edges: TestEdge[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { nodes, edges, ...extra };
}
