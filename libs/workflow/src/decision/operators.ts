import { compileSafeRegex, MAX_MATCH_SUBJECT_LENGTH } from './safe-regex';
import { WorkflowEvaluationError } from '../jsonpath';
import type { DecisionOperator } from './decision-config';

/**
 * Comparison semantics of decision operators (spec 2.8):
 * - numbers and numeric strings compare as numbers (`"10" > 9`);
 * - a boolean equals `"true"`/`"false"` (any case);
 * - null equals only null; objects and arrays compare structurally;
 * - `<`, `>`, `<=`, `>=` on two non-numeric strings compare by code point (ISO dates work);
 *   any other mix is false;
 * - `in`: left is an element of the right array, a substring of the right string,
 *   or a key of the right object; `contains` is the same with the sides swapped;
 * - `matches`: left (stringified) is tested against the right pattern (`abc` or `/abc/i`).
 */

const NUMERIC = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

export function toNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && NUMERIC.test(value.trim())) return Number(value.trim());
  return undefined;
}

function toBoolean(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') {
    const lowered = value.trim().toLowerCase();
    if (lowered === 'true') return true;
    if (lowered === 'false') return false;
  }
  return undefined;
}

export function looseEquals(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (left === null || left === undefined || right === null || right === undefined) {
    return (left === null || left === undefined) && (right === null || right === undefined);
  }
  if (typeof left === 'boolean' || typeof right === 'boolean') {
    const l = toBoolean(left);
    const r = toBoolean(right);
    return l !== undefined && l === r;
  }
  const ln = toNumber(left);
  const rn = toNumber(right);
  if (ln !== undefined && rn !== undefined) return ln === rn;
  if (typeof left === 'object' && typeof right === 'object') return canonical(left) === canonical(right);
  return false;
}

function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}

function order(left: unknown, right: unknown): number | undefined {
  const ln = toNumber(left);
  const rn = toNumber(right);
  if (ln !== undefined && rn !== undefined) return ln - rn;
  if (typeof left === 'string' && typeof right === 'string') return left < right ? -1 : left > right ? 1 : 0;
  return undefined;
}

function isMember(element: unknown, collection: unknown): boolean {
  if (Array.isArray(collection)) return collection.some((item) => looseEquals(element, item));
  if (typeof collection === 'string') {
    return (typeof element === 'string' || typeof element === 'number') && collection.includes(String(element));
  }
  if (collection !== null && typeof collection === 'object' && typeof element === 'string') {
    return Object.prototype.hasOwnProperty.call(collection, element);
  }
  return false;
}

function matches(subject: unknown, pattern: unknown): boolean {
  if (typeof pattern !== 'string') throw new WorkflowEvaluationError('The matches operator needs a string pattern as right operand');
  if (subject === null || subject === undefined) return false;
  const text = typeof subject === 'string' ? subject : typeof subject === 'object' ? JSON.stringify(subject) : String(subject);
  if (text.length > MAX_MATCH_SUBJECT_LENGTH) {
    throw new WorkflowEvaluationError(`The value tested by matches is longer than ${MAX_MATCH_SUBJECT_LENGTH} characters`);
  }
  return compileSafeRegex(pattern).test(text);
}

export function applyOperator(operator: DecisionOperator, left: unknown, right: unknown): boolean {
  switch (operator) {
    case '==':
      return looseEquals(left, right);
    case '!=':
      return !looseEquals(left, right);
    case '>':
    case '<':
    case '>=':
    case '<=': {
      const cmp = order(left, right);
      if (cmp === undefined) return false;
      if (operator === '>') return cmp > 0;
      if (operator === '<') return cmp < 0;
      return operator === '>=' ? cmp >= 0 : cmp <= 0;
    }
    case 'in':
      return isMember(left, right);
    case 'contains':
      return isMember(right, left);
    case 'matches':
      return matches(left, right);
    default: {
      const never: never = operator;
      throw new WorkflowEvaluationError(`Unknown operator ${String(never)}`);
    }
  }
}
