/** Decision node configuration (spec 2.8). */

export const DECISION_OPERATORS = ['==', '!=', '>', '<', '>=', '<=', 'in', 'contains', 'matches'] as const;
export type DecisionOperator = (typeof DECISION_OPERATORS)[number];

export const DEFAULT_TRUE_LABEL = 'true';
export const DEFAULT_FALSE_LABEL = 'false';

/** Task type ids handled as decision nodes (the canonical id and its alias). */
export const DECISION_TASK_TYPES: readonly string[] = ['decision', 'decision_task'];

export interface DecisionConfig {
  operator: DecisionOperator;
  left_operand: unknown;
  right_operand: unknown;
  true_label?: string;
  false_label?: string;
}

export function isDecisionOperator(value: unknown): value is DecisionOperator {
  return typeof value === 'string' && (DECISION_OPERATORS as readonly string[]).includes(value);
}

export function isDecisionTaskType(taskType: unknown): boolean {
  return typeof taskType === 'string' && DECISION_TASK_TYPES.includes(taskType);
}

/** The branch labels of a decision config, with defaults; blank labels fall back to the default. */
export function decisionLabels(config: unknown): { trueLabel: string; falseLabel: string } {
  const record = config !== null && typeof config === 'object' ? (config as Record<string, unknown>) : {};
  const pick = (value: unknown, fallback: string) => (typeof value === 'string' && value.trim() !== '' ? value : fallback);
  return {
    trueLabel: pick(record['true_label'], DEFAULT_TRUE_LABEL),
    falseLabel: pick(record['false_label'], DEFAULT_FALSE_LABEL),
  };
}
