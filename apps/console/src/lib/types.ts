/** Shapes of the public API's answers the console reads (spec part 2 and 4). */

export interface Pagination {
  page: number;
  pageSize: number;
  pageCount: number;
  total: number;
}

export interface ListBody<T> {
  data: T[];
  meta?: { pagination?: Pagination };
}

export interface ExecutionSummary {
  id: number;
  status: string;
  activity: { id: number; name: string | null };
  started_at: string | null;
  completed_at: string | null;
  duration_seconds: number | null;
  error: string | null;
  failed_node: string | null;
  total_cost: number;
  createdAt: string;
}

export interface WorkflowNode {
  id: string;
  type: string;
  position: { x: number; y: number };
  data: { label: string; task_type: string; config: Record<string, unknown> };
}

export interface WorkflowEdge {
  id: string;
  source: string;
  target: string;
  sourceHandle?: string;
  label?: string;
}

export interface WorkflowDefinition {
  nodes: WorkflowNode[];
  edges: WorkflowEdge[];
  input_schema?: import('../components/SchemaForm').JsonSchema;
  [k: string]: unknown;
}

export interface Activity {
  id: number;
  name: string;
  description?: string | null;
  status: string;
  workflow_type?: string;
  level?: string;
  workflow_definition: WorkflowDefinition;
  updatedAt?: string;
}

export interface TaskType {
  id: string;
  name: string;
  category: string;
  description: string;
  config_schema: import('../components/SchemaForm').JsonSchema;
}

export interface TaskState {
  status: string;
  error?: string | null;
  [k: string]: unknown;
}

export interface ExecutionStatusBody {
  id: number;
  status: string;
  task_states: Record<string, TaskState>;
  outputs: Record<string, unknown> | null;
  awaiting_node: string | null;
  correlation_token: string | null;
  awaiting_input_schema: import('../components/SchemaForm').JsonSchema | null;
  started_at: string | null;
  completed_at: string | null;
  error: string | null;
  failed_node: string | null;
}

export interface TimelineEntry {
  step_name: string;
  step_type: string;
  status: string;
  started_at: string | null;
  completed_at: string | null;
  duration_seconds: number | null;
  cost: number | null;
  result_summary: string | null;
}

export interface Timeline {
  execution_id: number;
  status: string;
  total_duration_seconds: number | null;
  timeline: TimelineEntry[];
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown> | null;
}

export const TERMINAL = ['completed', 'failed', 'cancelled'];
