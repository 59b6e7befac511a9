import { isPlainObject } from '@docflow/service-kit';
import { selectJsonPath } from './jsonpath';

/**
 * Applies a rest_api_task `output_mapping` (spec 2.7 rule 5): each output name
 * gets the value its JSONPath selects in `result` (`$.data.x`,
 * `$.data.items[0].id`, `$._status_code`, `$._raw_response.meta.next`). One
 * match is unwrapped, several stay an array, no match (or a non-string path)
 * gives null. Script expressions in paths are refused with a
 * WorkflowEvaluationError.
 */
export function applyOutputMapping(result: unknown, mapping: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!isPlainObject(mapping)) return out;
  for (const [name, path] of Object.entries(mapping)) {
    if (name === '__proto__') continue;
    out[name] = typeof path === 'string' ? selectJsonPath(result, path) : null;
  }
  return out;
}
