import { isPlainObject } from '@docflow/service-kit';

/**
 * The JSON object an LLM answered: the object itself, or the first object in
 * a string (bare, or inside a ```json fence). Undefined when there is none.
 */
export function jsonObjectFrom(content: unknown): Record<string, unknown> | undefined {
  if (isPlainObject(content)) return content;
  if (typeof content !== 'string') return undefined;
  const fenced = /```(?:json)?\s*\n([\s\S]*?)```/i.exec(content);
  const candidates = [fenced?.[1], content];
  for (const candidate of candidates) {
    if (candidate === undefined) continue;
    const start = candidate.indexOf('{');
    const end = candidate.lastIndexOf('}');
    if (start < 0 || end <= start) continue;
    try {
      const parsed = JSON.parse(candidate.slice(start, end + 1)) as unknown;
      if (isPlainObject(parsed)) return parsed;
    } catch {
      // not JSON; try the next candidate
    }
  }
  return undefined;
}

export interface FilledExample {
  /** The example with every key the answer gave a usable value for replaced by that value. */
  output: Record<string, unknown>;
  /** Top-level keys of the example the answer filled. */
  filled: number;
  /** Top-level keys of the example. */
  total: number;
}

function usableScalar(value: unknown): boolean {
  if (typeof value === 'string') return value.trim().length > 0;
  if (typeof value === 'number') return Number.isFinite(value);
  return typeof value === 'boolean';
}

function mergeValue(example: unknown, answer: unknown): { value: unknown; filled: boolean } {
  if (answer === undefined || answer === null) return { value: example, filled: false };
  if (Array.isArray(example)) return Array.isArray(answer) && answer.length > 0 ? { value: answer, filled: true } : { value: example, filled: false };
  if (isPlainObject(example)) {
    if (!isPlainObject(answer)) return { value: example, filled: false };
    const nested = fillExampleOutput(example, answer);
    return { value: nested.output, filled: nested.filled > 0 };
  }
  return usableScalar(answer) && !isPlainObject(answer) && !Array.isArray(answer) ? { value: answer, filled: true } : { value: example, filled: false };
}

/**
 * Puts an LLM's answer into an example output: only the example's keys are
 * kept, each taking the answer's value when it is usable and of the same
 * kind (a list for a list, an object for an object, a scalar for a scalar),
 * else keeping the example's value. The example stays the schema; the answer
 * only supplies values.
 */
export function fillExampleOutput(example: Record<string, unknown>, answer: unknown): FilledExample {
  const keys = Object.keys(example);
  if (!isPlainObject(answer)) return { output: { ...example }, filled: 0, total: keys.length };
  const output: Record<string, unknown> = {};
  let filled = 0;
  for (const key of keys) {
    const merged = mergeValue(example[key], answer[key]);
    output[key] = merged.value;
    if (merged.filled) filled++;
  }
  return { output, filled, total: keys.length };
}
