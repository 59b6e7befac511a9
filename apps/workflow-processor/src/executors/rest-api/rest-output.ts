import { applyOutputMapping, isPlainObject, WorkflowEvaluationError } from '@docflow/workflow';
import { NodeFailure } from '../executor';

/** Keys of a rest_api_task output that always mean what spec 2.7 says. */
const FIXED_KEYS: ReadonlySet<string> = new Set(['data', 'status_code', '_status_code', '_raw_response']);
const UNSAFE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** `{success, data}` envelopes carry the payload in `data` (spec 2.7 rule 4). */
export function unwrapEnvelope(body: unknown): unknown {
  if (isPlainObject(body) && typeof body['success'] === 'boolean' && Object.prototype.hasOwnProperty.call(body, 'data')) {
    return body['data'];
  }
  return body;
}

/**
 * The output of a rest_api_task (spec 2.7): `data` (the inner data of an
 * envelope), `status_code` and `_status_code`, `_raw_response` (the whole
 * body), the top-level fields of data when it is an object, and each
 * `output_mapping` name evaluated by JSONPath against that result object.
 * The four fixed keys always keep their meaning; a mapped name overrides a
 * top-level field of data with the same name.
 */
export function buildRestOutput(status: number, body: unknown, outputMapping: unknown): Record<string, unknown> {
  const data = unwrapEnvelope(body);
  const result: Record<string, unknown> = {};
  if (isPlainObject(data)) {
    for (const [key, value] of Object.entries(data)) {
      if (!FIXED_KEYS.has(key) && !UNSAFE_KEYS.has(key)) result[key] = value;
    }
  }
  result['data'] = data;
  result['status_code'] = status;
  result['_status_code'] = status;
  result['_raw_response'] = body;
  if (outputMapping === undefined || outputMapping === null) return result;
  if (!isPlainObject(outputMapping)) throw new NodeFailure('configuration_error', 'output_mapping must be an object of name to JSONPath');
  let mapped: Record<string, unknown>;
  try {
    mapped = applyOutputMapping(result, outputMapping);
  } catch (err) {
    if (err instanceof WorkflowEvaluationError) throw new NodeFailure('configuration_error', err.message);
    throw err;
  }
  for (const [name, value] of Object.entries(mapped)) {
    if (!FIXED_KEYS.has(name) && !UNSAFE_KEYS.has(name)) result[name] = value;
  }
  return result;
}
