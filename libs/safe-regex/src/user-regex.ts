import { RE2JS, RE2JSException } from 're2js';

/**
 * Regular expressions written by users (decision `matches`, JSON Schema
 * `pattern`, Data Shield tenant patterns) run in RE2 (the pure-JS port
 * `re2js`): matching is linear in the input, so no pattern can stall an event
 * loop the way V8's backtracking engine does on `^(\w|\d)+$` (issue #13).
 * The price is RE2's syntax: no lookaround and no backreferences; `\d`, `\w`
 * and `\s` are ASCII. JavaScript spellings (`(?<name>…)`, `\u00e9`, `/`) are
 * translated.
 */

export const DEFAULT_MAX_PATTERN_LENGTH = 1000;
/** RE2's own measure of a compiled program; `[a-z]{1000}` is about 1000. Matching costs up to input × size. */
export const DEFAULT_MAX_PROGRAM_SIZE = 2000;

export interface UserRegexLimits {
  maxLength?: number;
  maxProgramSize?: number;
}

export class UserRegexError extends Error {
  override readonly name = 'UserRegexError';
}

/** A compiled user regex, shaped like the parts of RegExp that are safe to offer. */
export interface UserRegex {
  readonly source: string;
  readonly flags: string;
  /** Whether the pattern matches anywhere in `text` (like RegExp#test, without lastIndex). */
  test(text: string): boolean;
  /** The first match, shaped like RegExp#exec's result (index, groups), or null. */
  exec(text: string): RegExpExecArray | null;
  /** Every non-overlapping match, like String#matchAll with a global regex. */
  matchAll(text: string): IterableIterator<RegExpMatchArray>;
  /** `text` with every match replaced by what `replacer` returns for it. */
  replaceAll(text: string, replacer: (match: string) => string): string;
  toString(): string;
}

const FLAG_BITS: Record<string, number> = { i: RE2JS.CASE_INSENSITIVE, m: RE2JS.MULTILINE, s: RE2JS.DOTALL, u: 0, g: 0 };
const UNSUPPORTED = 'is not supported by the linear-time engine (no lookaround or backreferences)';

/** Why `pattern` with `flags` cannot be used, or undefined when it compiles. */
export function userRegexProblem(pattern: string, flags = '', limits: UserRegexLimits = {}): string | undefined {
  const compiled = compile(pattern, flags, limits);
  return typeof compiled === 'string' ? compiled : undefined;
}

/** Compiles a user's pattern (JavaScript syntax, flags from g, i, m, s, u), or throws UserRegexError. */
export function compileUserRegex(pattern: string, flags = '', limits: UserRegexLimits = {}): UserRegex {
  const compiled = compile(pattern, flags, limits);
  if (typeof compiled === 'string') throw new UserRegexError(`The pattern ${JSON.stringify(pattern.slice(0, 80))} ${compiled}`);
  return wrap(compiled, pattern, flags);
}

function compile(pattern: string, flags: string, limits: UserRegexLimits): RE2JS | string {
  const maxLength = limits.maxLength ?? DEFAULT_MAX_PATTERN_LENGTH;
  const maxProgramSize = limits.maxProgramSize ?? DEFAULT_MAX_PROGRAM_SIZE;
  if (pattern.length > maxLength) return `is longer than ${maxLength} characters`;
  if ([...flags].some((f) => !(f in FLAG_BITS)) || new Set(flags).size !== flags.length) {
    return `has unsupported flags ${flags} (use g, i, m, s, u)`;
  }
  // re2js's translation turns the `\k<name>` backreference into the literal `k<name>`: refuse it first.
  if (/(^|[^\\])(\\\\)*\\k/.test(pattern)) return `${UNSUPPORTED}: \\k`;
  let re: RE2JS;
  try {
    const bits = [...flags].reduce((acc, f) => acc | (FLAG_BITS[f] ?? 0), 0);
    re = RE2JS.compile(RE2JS.translateRegExp(pattern), bits);
  } catch (err) {
    if (!(err instanceof RE2JSException)) throw err;
    const reason = err.message.replace(/^error parsing regexp: /, '');
    return /unsupported Perl syntax|invalid escape sequence: `\\\d|invalid named capture: `\(\?<[=!]/.test(reason) ? `${UNSUPPORTED}: ${reason}` : `is not a valid regular expression (${reason})`;
  }
  if (re.programSize() > maxProgramSize) return `is too complex (it expands to more than ${maxProgramSize} instructions)`;
  return re;
}

function wrap(re: RE2JS, source: string, flags: string): UserRegex {
  return {
    source,
    flags,
    test: (text) => re.test(text),
    exec: (text) => re.exec(text) as RegExpExecArray | null,
    matchAll: (text) => re.matchAll(text),
    replaceAll: (text, replacer) => re.matcher(text).replaceAll((match: string) => replacer(match)),
    // ajv keys its cache of compiled patterns by this string: it must differ per pattern and flags.
    toString: () => `/${source}/${flags}`,
  };
}
