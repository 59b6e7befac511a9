import { compileUserRegex, type UserRegex, userRegexProblem } from '@docflow/safe-regex';
import { WorkflowEvaluationError } from '../jsonpath';

/**
 * Regular expressions for the `matches` operator come from users, so they run
 * in RE2 (libs/safe-regex), which matches in time linear in the input: no
 * pattern can backtrack catastrophically (issue #13). Patterns are capped in
 * length, take only the i/m/s/u flags, and RE2 has no lookaround or
 * backreferences.
 */

export const MAX_PATTERN_LENGTH = 256;
export const MAX_MATCH_SUBJECT_LENGTH = 100_000;

const SLASHED = /^\/(.+)\/([a-z]*)$/s;
const ALLOWED_FLAGS = /^[imsu]*$/;

/** Why `source` may not be used as a `matches` pattern, or undefined when it is fine. */
export function regexProblem(source: string): string | undefined {
  const parsed = parsePattern(source);
  if (typeof parsed === 'string') return parsed;
  return userRegexProblem(parsed.pattern, parsed.flags, { maxLength: MAX_PATTERN_LENGTH });
}

/** Compiles a `matches` pattern (`abc` or `/abc/i`), or throws WorkflowEvaluationError. */
export function compileSafeRegex(source: string): UserRegex {
  const problem = regexProblem(source);
  if (problem) throw new WorkflowEvaluationError(`The pattern ${JSON.stringify(source.slice(0, 80))} ${problem}`);
  const parsed = parsePattern(source) as { pattern: string; flags: string };
  return compileUserRegex(parsed.pattern, parsed.flags, { maxLength: MAX_PATTERN_LENGTH });
}

function parsePattern(source: string): { pattern: string; flags: string } | string {
  if (source.length > MAX_PATTERN_LENGTH) return `is longer than ${MAX_PATTERN_LENGTH} characters`;
  const slashed = SLASHED.exec(source);
  const pattern = slashed ? (slashed[1] ?? '') : source;
  const flags = slashed ? (slashed[2] ?? '') : '';
  if (!ALLOWED_FLAGS.test(flags) || new Set(flags).size !== flags.length) return `has unsupported flags ${flags} (use i, m, s, u)`;
  return { pattern, flags };
}
