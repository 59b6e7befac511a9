import type { WorkflowEdge } from '../types';

/**
 * How edges leaving a decision node name their branch: by `label` or by
 * `sourceHandle` (designers use either). Matching ignores case and
 * surrounding whitespace, so an edge labelled `True` takes the `true` branch.
 */

function normalise(label: string): string {
  return label.trim().toLowerCase();
}

/** The non-blank `label` and `sourceHandle` of an edge. */
export function edgeLabels(edge: Pick<WorkflowEdge, 'label' | 'sourceHandle'>): string[] {
  return [edge.label, edge.sourceHandle].filter((v): v is string => typeof v === 'string' && v.trim() !== '');
}

/** Whether the edge's label or sourceHandle names `branch`. */
export function edgeMatchesBranch(edge: Pick<WorkflowEdge, 'label' | 'sourceHandle'>, branch: string): boolean {
  const wanted = normalise(branch);
  return edgeLabels(edge).some((label) => normalise(label) === wanted);
}

export function sameLabel(a: string, b: string): boolean {
  return normalise(a) === normalise(b);
}
