import type { JsonSchema } from '../types';

export const TASK_CATEGORIES = ['AI Operations', 'Drive integration', 'External Integrations', 'Communication', 'Workflow Control'] as const;
export type TaskCategory = (typeof TASK_CATEGORIES)[number];

/** One entry of the task-type registry (spec 2.7), as served by `GET /workflows/task-types`. */
export interface TaskTypeDefinition {
  id: string;
  name: string;
  category: TaskCategory;
  description: string;
  /** A short icon name (lucide-style) for designers. */
  icon: string;
  /** Which processor handler runs the node. */
  processor: string;
  /** Other ids that resolve to this entry (e.g. `decision_task`). */
  aliases?: readonly string[];
  config_schema: JsonSchema;
  input_schema: JsonSchema;
  output_schema: JsonSchema;
}
