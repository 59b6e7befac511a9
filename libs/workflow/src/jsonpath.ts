import { JSONPath } from 'jsonpath-plus';
import { errorMessage } from '@docflow/service-kit';

/** A run-time evaluation problem (bad JSONPath, bad regular expression...); the node fails with its message. */
export class WorkflowEvaluationError extends Error {
  override readonly name = 'WorkflowEvaluationError';
}

const FORBIDDEN_SEGMENT = /(^|[.[\]'"])(__proto__|constructor|prototype)($|[.[\]'"])/;

/** Whether an operand is a JSONPath (`$`, `$.x`, `$['x']`) rather than a literal. */
export function isJsonPath(value: unknown): value is string {
  return typeof value === 'string' && (value === '$' || value.startsWith('$.') || value.startsWith('$['));
}

/**
 * Every value matched by `path` in `json`. Script expressions (`?()`, `()`)
 * are refused (`eval: false`), only own properties are visited, and paths
 * naming `__proto__`, `constructor` or `prototype` match nothing.
 */
export function queryJsonPath(json: unknown, path: string): unknown[] {
  if (FORBIDDEN_SEGMENT.test(path)) return [];
  let result: unknown;
  try {
    result = JSONPath({ path, json: toJson(json), eval: false, wrap: true });
  } catch (err) {
    throw new WorkflowEvaluationError(`Invalid JSONPath ${path}: ${errorMessage(err)}`);
  }
  return Array.isArray(result) ? result : [];
}

/** One match unwrapped, several as an array, none as null. */
export function selectJsonPath(json: unknown, path: string): unknown {
  const matches = queryJsonPath(json, path);
  if (matches.length === 0) return null;
  return matches.length === 1 ? matches[0] : matches;
}

function toJson(value: unknown): null | boolean | number | string | object {
  if (value === undefined || typeof value === 'function' || typeof value === 'symbol' || typeof value === 'bigint') return null;
  return value;
}
