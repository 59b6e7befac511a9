import { isPlainObject } from '@docflow/service-kit';
import { edgeLabels, edgeMatchesBranch, sameLabel } from '../decision/branch-edges';
import { decisionLabels } from '../decision/decision-config';
import { regexProblem } from '../decision/safe-regex';
import { isJsonPath } from '../jsonpath';
import type { WorkflowLimits } from '../limits';
import { jsonSchemaProblem, validateAgainstSchema } from '../schema/validate-schema';
import { getTaskType } from '../task-types/registry';
import { hasTemplate } from '../templates';
import { type WorkflowEdge, type WorkflowNode } from '../types';
import { taskLimitErrors } from './limit-rules';
import { retryConfigErrors } from '../retry/retry-policy';

/** Problems of one `type: task` node: its task type, its config and its limits, and for decisions its outgoing edges. */
export function checkTaskNode(node: WorkflowNode, outgoing: readonly WorkflowEdge[], limits: WorkflowLimits): string[] {
  const taskType = node.data.task_type;
  if (typeof taskType !== 'string' || taskType.trim() === '') return [`Node ${node.id} has no task_type`];
  const entry = getTaskType(taskType);
  if (!entry) return [`Node ${node.id} has unknown task_type "${taskType}"`];

  const label = `Node ${node.id} (${taskType}): config`;
  const config: unknown = node.data.config === undefined ? {} : node.data.config;
  const errors = validateAgainstSchema(entry.config_schema, config, label);
  if (!isPlainObject(config)) return errors;
  errors.push(...taskLimitErrors(entry.id, config, label, limits), ...retryConfigErrors(config['retry'], `${label}.retry`));
  switch (entry.id) {
    case 'rest_api_task':
      errors.push(...urlRule(config['url'], `${label}.url`));
      break;
    case 'wait_task':
      errors.push(...urlRule(config['endpoint'], `${label}.endpoint`));
      break;
    case 'user_input_task':
      errors.push(...resumeSchemaRule(config['input_schema'], `${label}.input_schema`));
      break;
    case 'decision':
      errors.push(...decisionConfigRules(config, label), ...decisionEdgeRules(node.id, config, outgoing));
      break;
    default:
      break;
  }
  return errors;
}

/** A literal URL (no template) must be absolute http(s); templated ones are checked at run time. */
function urlRule(url: unknown, label: string): string[] {
  if (typeof url !== 'string' || url === '' || hasTemplate(url)) return [];
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? [] : [`${label} must be an http or https URL`];
  } catch {
    return [`${label} must be an absolute http or https URL`];
  }
}

function resumeSchemaRule(schema: unknown, label: string): string[] {
  if (!isPlainObject(schema)) return [];
  const errors: string[] = [];
  if (schema['type'] !== 'object') errors.push(`${label} must have type "object"`);
  const problem = jsonSchemaProblem(schema);
  if (problem) errors.push(`${label} is not a valid JSON Schema: ${problem}`);
  return errors;
}

function decisionConfigRules(config: Record<string, unknown>, label: string): string[] {
  const errors: string[] = [];
  const { trueLabel, falseLabel } = decisionLabels(config);
  if (sameLabel(trueLabel, falseLabel)) errors.push(`${label}.true_label and false_label must differ`);
  const pattern = config['right_operand'];
  if (config['operator'] === 'matches' && typeof pattern === 'string' && !isJsonPath(pattern) && !hasTemplate(pattern)) {
    const problem = regexProblem(pattern);
    if (problem) errors.push(`${label}.right_operand ${problem}`);
  }
  return errors;
}

/** Spec 2.8 rule 1: exactly two outgoing edges, labelled, one per branch. */
function decisionEdgeRules(nodeId: string, config: Record<string, unknown>, outgoing: readonly WorkflowEdge[]): string[] {
  const errors: string[] = [];
  const { trueLabel, falseLabel } = decisionLabels(config);
  const expected = `"${trueLabel}" or "${falseLabel}"`;
  if (outgoing.length !== 2) {
    errors.push(`Decision node ${nodeId} must have exactly 2 outgoing edges (found ${outgoing.length})`);
  }
  if (sameLabel(trueLabel, falseLabel)) return errors;
  for (const edge of outgoing) {
    const labels = edgeLabels(edge);
    const isTrue = edgeMatchesBranch(edge, trueLabel);
    const isFalse = edgeMatchesBranch(edge, falseLabel);
    if (labels.length === 0) {
      errors.push(`Edge ${edge.id} from decision node ${nodeId} must be labelled ${expected} (label or sourceHandle)`);
    } else if (isTrue && isFalse) {
      errors.push(`Edge ${edge.id} from decision node ${nodeId} is labelled as both branches`);
    } else if (!isTrue && !isFalse) {
      errors.push(`Edge ${edge.id} from decision node ${nodeId} is labelled "${labels.join('" / "')}"; expected ${expected}`);
    }
  }
  if (outgoing.length === 0) return errors;
  for (const branch of [trueLabel, falseLabel]) {
    const count = outgoing.filter((edge) => edgeMatchesBranch(edge, branch)).length;
    if (count === 0) errors.push(`Decision node ${nodeId} has no outgoing edge labelled "${branch}"`);
    if (count > 1) errors.push(`Decision node ${nodeId} has ${count} outgoing edges labelled "${branch}"`);
  }
  return errors;
}
