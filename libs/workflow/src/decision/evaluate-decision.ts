import { isPlainObject } from '@docflow/service-kit';
import { isJsonPath, selectJsonPath, WorkflowEvaluationError } from '../jsonpath';
import { resolveTemplates, type TemplateScope } from '../templates';
import { decisionLabels, DECISION_OPERATORS, isDecisionOperator, type DecisionOperator } from './decision-config';
import { applyOperator } from './operators';

export interface DecisionOutcome {
  result: boolean;
  /** The label of the taken branch (true_label or false_label). */
  branch: string;
  decision: 'true' | 'false';
  /** Same as branch: the label of the edges that stay active. */
  active_path: string;
  condition: {
    operator: DecisionOperator;
    left_operand: unknown;
    right_operand: unknown;
    left_value: unknown;
    right_value: unknown;
  };
}

/**
 * Evaluates a decision node (spec 2.8) against the workflow scope (see
 * buildScope). An operand starting with `$.` or `$[` is a JSONPath into the
 * scope (no script evaluation; no match gives null); any other operand is a
 * literal whose `{{templates}}` are resolved. Throws WorkflowEvaluationError
 * for a config without operator or operands, or an unusable pattern.
 */
export function evaluateDecision(config: unknown, scope: TemplateScope): DecisionOutcome {
  if (!isPlainObject(config)) throw new WorkflowEvaluationError('Decision config must be an object');
  const operator = config['operator'];
  if (!isDecisionOperator(operator)) {
    throw new WorkflowEvaluationError(`Decision operator must be one of ${DECISION_OPERATORS.join(', ')}`);
  }
  for (const field of ['left_operand', 'right_operand'] as const) {
    if (!(field in config) || config[field] === undefined) throw new WorkflowEvaluationError(`Decision config lacks ${field}`);
  }
  const leftOperand = config['left_operand'];
  const rightOperand = config['right_operand'];
  const leftValue = resolveOperand(leftOperand, scope);
  const rightValue = resolveOperand(rightOperand, scope);
  const result = applyOperator(operator, leftValue, rightValue);
  const { trueLabel, falseLabel } = decisionLabels(config);
  const branch = result ? trueLabel : falseLabel;
  return {
    result,
    branch,
    decision: result ? 'true' : 'false',
    active_path: branch,
    condition: {
      operator,
      left_operand: leftOperand,
      right_operand: rightOperand,
      left_value: leftValue ?? null,
      right_value: rightValue ?? null,
    },
  };
}

function resolveOperand(operand: unknown, scope: TemplateScope): unknown {
  if (isJsonPath(operand)) return selectJsonPath(scope, operand);
  return resolveTemplates(operand, scope);
}
