// User regexes (issue #13, ReDoS): time to answer the patterns that backtrack
// exponentially in V8, in RE2 (libs/safe-regex) on long adversarial inputs and
// in V8 on short ones (V8's time grows exponentially or as n^5, so it stops early).
import { compileUserRegex } from '@docflow/safe-regex';
import { validateAgainstSchema } from '@docflow/workflow';
import { report } from './support';

// Each pattern with the input lengths V8 is timed on: exponential ones double per character, the polynomial one grows as n^5.
const PATTERNS: [string, number[]][] = [
  ['^(\\w|\\d)+$', [16, 20, 24]],
  ['^(a+)+$', [16, 20, 24]],
  ['^\\d*\\d*\\d*\\d*\\d*$', [25, 50, 100]],
];

function adversarial(pattern: string, length: number): string {
  return `${(pattern.includes('a+') ? 'a' : '1').repeat(length)}!`;
}

function timeMs(run: () => unknown): number {
  const t0 = performance.now();
  run();
  return Math.round((performance.now() - t0) * 1000) / 1000;
}

const rows: Record<string, string | number>[] = [];
for (const [pattern, v8Lengths] of PATTERNS) {
  const re2 = compileUserRegex(pattern);
  for (const length of [40, 1000, 100_000]) {
    rows.push({ engine: 'RE2 (decision matches)', pattern, length, ms: timeMs(() => re2.test(adversarial(pattern, length))) });
  }
  const schema = { type: 'string', pattern };
  validateAgainstSchema(schema, '', 'v'); // compiles and caches the schema
  rows.push({ engine: 'RE2 (ajv pattern)', pattern, length: 40, ms: timeMs(() => validateAgainstSchema(schema, adversarial(pattern, 40), 'v')) });
  const v8 = new RegExp(pattern);
  for (const length of v8Lengths) rows.push({ engine: 'V8 backtracking', pattern, length, ms: timeMs(() => v8.test(adversarial(pattern, length))) });
}
report('user-regex', rows);
