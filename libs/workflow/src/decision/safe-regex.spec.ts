import { compileSafeRegex, MAX_PATTERN_LENGTH, regexProblem } from './safe-regex';

describe('regexProblem', () => {
  it.each([
    '^INV-\\d{4}$',
    '(ab)+',
    '(a|b)+c',
    '(?:abc)*',
    '(a+)?',
    '(a+){2}',
    '[(a+)+]',
    '\\(a+\\)+',
    '(?<year>\\d{4})-(?<month>\\d{2})',
    '^\\w+@\\w+\\.com$',
    // Catastrophic in a backtracking engine, linear in RE2.
    '(a+)+$',
    '(\\w+\\s?)+$',
    '(a|ab)+c',
    '^(\\w|\\d)+$',
    '^\\d*\\d*\\d*\\d*\\d*$',
  ])('accepts %s', (pattern) => {
    expect(regexProblem(pattern)).toBeUndefined();
  });

  it.each(['(?=a)b+', '(?<!a)b', '(a)\\1'])('refuses %s, which the linear-time engine cannot run', (pattern) => {
    expect(regexProblem(pattern)).toMatch(/^is not supported by the linear-time engine \(no lookaround or backreferences\)/);
  });

  it('caps the pattern length and checks syntax and flags', () => {
    expect(regexProblem('a'.repeat(MAX_PATTERN_LENGTH + 1))).toBe(`is longer than ${MAX_PATTERN_LENGTH} characters`);
    expect(regexProblem('a'.repeat(MAX_PATTERN_LENGTH))).toBeUndefined();
    expect(regexProblem('(unclosed')).toMatch(/^is not a valid regular expression/);
    expect(regexProblem('/abc/y')).toBe('has unsupported flags y (use i, m, s, u)');
    expect(regexProblem('/abc/ii')).toBe('has unsupported flags ii (use i, m, s, u)');
  });

  it('compiles /pattern/flags and plain patterns', () => {
    const slashed = compileSafeRegex('/^a.c$/is');
    expect(slashed.flags).toBe('is');
    expect(slashed.test('A\nC')).toBe(true);
    expect(compileSafeRegex('a/b').test('xa/by')).toBe(true);
  });
});
