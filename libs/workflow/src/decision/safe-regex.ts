import { WorkflowEvaluationError } from '../jsonpath';

/**
 * Regular expressions for the `matches` operator come from users, so they are
 * bounded: a length cap, only the i/m/s/u flags, and a refusal of the
 * patterns that backtrack exponentially in the obvious way, namely a
 * quantified group that itself contains an unbounded quantifier (`(a+)+`,
 * `(\w+\s?)*`) or overlapping alternatives (`(a|a)*`, `(a|ab)+`).
 */

export const MAX_PATTERN_LENGTH = 256;
export const MAX_MATCH_SUBJECT_LENGTH = 100_000;

const SLASHED = /^\/(.+)\/([a-z]*)$/s;
const ALLOWED_FLAGS = /^[imsu]*$/;

/** Why `source` may not be used as a `matches` pattern, or undefined when it is fine. */
export function regexProblem(source: string): string | undefined {
  const parsed = parsePattern(source);
  if (typeof parsed === 'string') return parsed;
  try {
    new RegExp(parsed.pattern, parsed.flags);
  } catch (err) {
    return `is not a valid regular expression (${err instanceof Error ? err.message : String(err)})`;
  }
  return undefined;
}

/** Compiles a `matches` pattern (`abc` or `/abc/i`), or throws WorkflowEvaluationError. */
export function compileSafeRegex(source: string): RegExp {
  const problem = regexProblem(source);
  if (problem) throw new WorkflowEvaluationError(`The pattern ${JSON.stringify(source.slice(0, 80))} ${problem}`);
  const parsed = parsePattern(source) as { pattern: string; flags: string };
  return new RegExp(parsed.pattern, parsed.flags);
}

function parsePattern(source: string): { pattern: string; flags: string } | string {
  if (source.length > MAX_PATTERN_LENGTH) return `is longer than ${MAX_PATTERN_LENGTH} characters`;
  const slashed = SLASHED.exec(source);
  const pattern = slashed ? (slashed[1] ?? '') : source;
  const flags = slashed ? (slashed[2] ?? '') : '';
  if (!ALLOWED_FLAGS.test(flags) || new Set(flags).size !== flags.length) return `has unsupported flags ${flags} (use i, m, s, u)`;
  if (hasNestedQuantifier(pattern)) return 'may backtrack catastrophically (a repeated group contains a repetition or overlapping alternatives)';
  return { pattern, flags };
}

interface Quantifier {
  length: number;
  unbounded: boolean;
}

function readQuantifier(pattern: string, at: number): Quantifier | undefined {
  const char = pattern[at];
  let length: number;
  let unbounded: boolean;
  if (char === '+' || char === '*') {
    length = 1;
    unbounded = true;
  } else if (char === '?') {
    length = 1;
    unbounded = false;
  } else if (char === '{') {
    const braces = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(at));
    if (!braces) return undefined;
    length = braces[0].length;
    unbounded = braces[2] !== undefined && braces[3] === '';
  } else {
    return undefined;
  }
  if (pattern[at + length] === '?') length += 1;
  return { length, unbounded };
}

interface GroupFrame {
  start: number;
  repeats: boolean;
}

function hasNestedQuantifier(pattern: string): boolean {
  const stack: GroupFrame[] = [{ start: 0, repeats: false }];
  let inClass = false;
  let i = 0;
  while (i < pattern.length) {
    const char = pattern[i];
    if (char === '\\') {
      i += 2;
      continue;
    }
    if (inClass) {
      if (char === ']') inClass = false;
      i += 1;
      continue;
    }
    if (char === '[') {
      inClass = true;
      i += 1;
      continue;
    }
    if (char === '(') {
      i += 1 + groupPrefixLength(pattern, i + 1);
      stack.push({ start: i, repeats: false });
      continue;
    }
    if (char === ')' && stack.length > 1) {
      const frame = stack.pop() as GroupFrame;
      const body = pattern.slice(frame.start, i);
      i += 1;
      const quantifier = readQuantifier(pattern, i);
      const parent = stack[stack.length - 1] as GroupFrame;
      if (quantifier) {
        if (quantifier.unbounded && (frame.repeats || hasOverlappingAlternatives(body))) return true;
        i += quantifier.length;
        parent.repeats ||= quantifier.unbounded;
      }
      parent.repeats ||= frame.repeats;
      continue;
    }
    const quantifier = readQuantifier(pattern, i);
    if (quantifier) {
      (stack[stack.length - 1] as GroupFrame).repeats ||= quantifier.unbounded;
      i += quantifier.length;
      continue;
    }
    i += 1;
  }
  return false;
}

/** Length of `?:`, `?=`, `?!`, `?<=`, `?<!` or `?<name>` after an opening parenthesis. */
function groupPrefixLength(pattern: string, at: number): number {
  if (pattern[at] !== '?') return 0;
  const next = pattern[at + 1];
  if (next === ':' || next === '=' || next === '!') return 2;
  if (next === '<') {
    const after = pattern[at + 2];
    if (after === '=' || after === '!') return 3;
    const close = pattern.indexOf('>', at);
    return close === -1 ? 1 : close - at + 1;
  }
  return 1;
}

/** Top-level alternatives of a group body where one is a prefix of another (including equal ones). */
function hasOverlappingAlternatives(body: string): boolean {
  const alternatives: string[] = [];
  let depth = 0;
  let inClass = false;
  let current = '';
  for (let i = 0; i < body.length; i += 1) {
    const char = body[i] as string;
    if (char === '\\') {
      current += body.slice(i, i + 2);
      i += 1;
      continue;
    }
    if (inClass) inClass = char !== ']';
    else if (char === '[') inClass = true;
    else if (char === '(') depth += 1;
    else if (char === ')') depth -= 1;
    else if (char === '|' && depth === 0) {
      alternatives.push(current);
      current = '';
      continue;
    }
    current += char;
  }
  alternatives.push(current);
  if (alternatives.length < 2) return false;
  return alternatives.some((a, i) => alternatives.some((b, j) => i !== j && b.startsWith(a)));
}
