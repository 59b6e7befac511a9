import { isPlainObject, type WorkflowGraph } from '@docflow/workflow';
import { executorIdOf } from '../../../engine/node-kinds';

/** An activity's `data_shield_policy` (spec 2.5) as the processor reads it. */
export interface ShieldPolicy {
  /** Every LLM node must be shielded; a node that opts out fails the run with DATA_SHIELD_POLICY_VIOLATION. */
  required: boolean;
  /** LLM nodes are shielded unless they opt out. */
  enabled: boolean;
  entityTypes?: string[];
}

/** How one node's LLM calls are made. */
export interface NodeShielding {
  enabled: boolean;
  required: boolean;
  entityTypes?: string[];
}

/** The task types that call the LLM service for every run (spec 4.17 rule 7: "LLM-type nodes"). */
export const SHIELDABLE_TASK_TYPES: ReadonlySet<string> = new Set(['classification_task', 'extraction_task', 'llm_task', 'summarization_task', 'classify_and_extract']);

/** Task types whose text reaches a model through an entry point Data Shield does not cover (spec 4.17 rule 6: RAG). */
export const UNSHIELDED_LLM_TASK_TYPES: ReadonlySet<string> = new Set(['rag_query_task']);

function entityTypesOf(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.length > 0 && value.every((t) => typeof t === 'string') ? (value as string[]).map((t) => t.toUpperCase()) : undefined;
}

const truthy = (v: unknown) => v === true || v === 'true';
const falsy = (v: unknown) => v === false || v === 'false';

/**
 * `data_shield_policy`: `{required: true}` forces Data Shield on every LLM
 * node (also read: `mode: "required"` or `"enforce"`, `enforce: true`);
 * `{enabled: true}` shields nodes that do not opt out; `entity_types` is the
 * default type list. Anything else (null, {}) is no policy.
 */
export function parseShieldPolicy(raw: unknown): ShieldPolicy | undefined {
  if (!isPlainObject(raw)) return undefined;
  const required = truthy(raw['required']) || truthy(raw['enforce']) || raw['mode'] === 'required' || raw['mode'] === 'enforce';
  const enabled = required || truthy(raw['enabled']) || raw['mode'] === 'enabled';
  if (!enabled) return undefined;
  const entityTypes = entityTypesOf(raw['entity_types']);
  return { required, enabled, ...(entityTypes ? { entityTypes } : {}) };
}

/** A node's own `data_shield` setting: true/false, or `{enabled, entity_types}`; undefined when it sets none. */
function nodeSetting(config: Record<string, unknown>): { enabled?: boolean; entityTypes?: string[] } {
  const v = config['data_shield'];
  if (truthy(v)) return { enabled: true };
  if (falsy(v)) return { enabled: false };
  if (!isPlainObject(v)) return {};
  const entityTypes = entityTypesOf(v['entity_types']);
  return { ...(truthy(v['enabled']) ? { enabled: true } : falsy(v['enabled']) ? { enabled: false } : {}), ...(entityTypes ? { entityTypes } : {}) };
}

/** What a node does under the policy: shielded or not, or a violation when a required policy meets an opt-out. */
export function nodeShielding(config: Record<string, unknown>, policy: ShieldPolicy | undefined): NodeShielding | { violation: string } {
  const own = nodeSetting(config);
  if (policy?.required && own.enabled === false) return { violation: 'its config sets data_shield to false' };
  const enabled = own.enabled ?? policy?.enabled ?? false;
  const entityTypes = own.entityTypes ?? policy?.entityTypes;
  return { enabled, required: policy?.required ?? false, ...(entityTypes ? { entityTypes } : {}) };
}

export interface PolicyViolation {
  nodeId: string;
  message: string;
}

/**
 * The first LLM node of the graph that would run unshielded under a policy
 * that requires shielding, checked before any node runs (so before any
 * provider call). Undefined when the run may go ahead.
 */
export function findPolicyViolation(graph: WorkflowGraph, policy: ShieldPolicy | undefined): PolicyViolation | undefined {
  if (!policy?.required) return undefined;
  for (const id of graph.order) {
    const node = graph.nodes.get(id);
    if (!node) continue;
    const taskType = executorIdOf(node);
    const config = isPlainObject(node.data.config) ? node.data.config : {};
    let reason: string | undefined;
    if (UNSHIELDED_LLM_TASK_TYPES.has(taskType)) reason = `${taskType} answers through RAG, which Data Shield does not cover`;
    else if (SHIELDABLE_TASK_TYPES.has(taskType)) {
      const shielding = nodeShielding(config, policy);
      if ('violation' in shielding) reason = shielding.violation;
    }
    if (reason) {
      return { nodeId: id, message: `DATA_SHIELD_POLICY_VIOLATION: node ${id} would send text to an LLM unshielded (${reason}), but the activity's data_shield_policy requires Data Shield` };
    }
  }
  return undefined;
}
