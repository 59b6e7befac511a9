import { isPlainObject } from '@docflow/workflow';
import { BadRequestError } from '@docflow/service-kit';

/**
 * The fields of a write request: `{data: {...}}` (spec 2.1), or the flat
 * object when there is no `data` key. An empty body counts as `{}`.
 */
export function requestFields(body: unknown): Record<string, unknown> {
  if (body === undefined || body === null) return {};
  if (!isPlainObject(body)) throw BadRequestError.withErrors('Request body must be a JSON object', ['body must be a JSON object']);
  if (!('data' in body)) return body;
  const data = body['data'];
  if (!isPlainObject(data)) throw BadRequestError.withErrors('Request body must be {"data": {...}}', ['data must be an object']);
  return data;
}

/** A path parameter that must be a positive integer id; anything else is not found (404 with `message`). */
export function idParam(value: unknown): number | undefined {
  if (typeof value !== 'string' || !/^[1-9]\d{0,9}$/.test(value)) return undefined;
  const id = Number(value);
  return id <= 2147483647 ? id : undefined;
}
