import { compileUserRegex, UserRegexError, userRegexProblem } from './user-regex';

/** Inputs that take a backtracking engine seconds to minutes (doubling per character). */
const adversarial = '1'.repeat(48) + '!';

describe('compileUserRegex', () => {
  it('answers the classic catastrophic patterns on a long adversarial input', () => {
    expect(compileUserRegex('^(\\w|\\d)+$').test(adversarial)).toBe(false);
    expect(compileUserRegex('^\\d*\\d*\\d*\\d*\\d*$').test(adversarial)).toBe(false);
    expect(compileUserRegex('^(a+)+$').test('a'.repeat(48) + 'b')).toBe(false);
    expect(compileUserRegex('^(\\w|\\d)+$').test('1'.repeat(48))).toBe(true);
  });

  it('keeps the JavaScript syntax users write: named groups, \\u escapes, slashes', () => {
    const date = compileUserRegex('(?<year>\\d{4})-(?<month>\\d{2})');
    expect(date.exec('due 2024-05')?.groups).toEqual({ year: '2024', month: '05' });
    expect(compileUserRegex('caf\\u00e9').test('un café')).toBe(true);
    expect(compileUserRegex('a/b').test('xa/by')).toBe(true);
  });

  it('maps the i, m and s flags and accepts u and g', () => {
    expect(compileUserRegex('^a.c$', 'is').test('A\nC')).toBe(true);
    expect(compileUserRegex('^a.c$', 's').test('A\nC')).toBe(false);
    expect(compileUserRegex('^b$', 'm').test('a\nb')).toBe(true);
    expect(compileUserRegex('^b$').test('a\nb')).toBe(false);
    expect(compileUserRegex('x', 'gu').flags).toBe('gu');
  });

  it('finds every match with its position, and replaces them', () => {
    const digits = compileUserRegex('\\d+');
    expect([...digits.matchAll('a1 b22 c333')].map((m) => [m[0], m.index])).toEqual([
      ['1', 1],
      ['22', 4],
      ['333', 8],
    ]);
    expect(digits.replaceAll('a1 b22', (m) => '#'.repeat(m.length))).toBe('a# b##');
    expect(digits.exec('none')).toBeNull();
  });

  it('prints as a regex literal that names pattern and flags', () => {
    expect(String(compileUserRegex('a+', 'i'))).toBe('/a+/i');
    expect(compileUserRegex('a+').source).toBe('a+');
  });

  it('throws UserRegexError with the problem', () => {
    expect(() => compileUserRegex('(?=a)b')).toThrow(UserRegexError);
    expect(() => compileUserRegex('(?=a)b')).toThrow(/lookaround/);
  });
});

describe('userRegexProblem', () => {
  it('accepts ordinary patterns', () => {
    for (const pattern of ['^INV-\\d{4}$', '(ab)+', '(a+){2}', '[(a+)+]', '\\p{L}+', '^[^@\\s]+@[^@\\s]+\\.[a-z]{2,}$']) {
      expect(userRegexProblem(pattern)).toBeUndefined();
    }
  });

  it('refuses what a linear-time engine cannot do, saying so', () => {
    expect(userRegexProblem('(?=a)b')).toMatch(/^is not supported by the linear-time engine \(no lookaround or backreferences\): .*\(\?=/);
    expect(userRegexProblem('(?<!a)b')).toMatch(/^is not supported by the linear-time engine/);
    expect(userRegexProblem('(a)\\1')).toMatch(/^is not supported by the linear-time engine/);
    expect(userRegexProblem('(?<y>a)\\k<y>')).toMatch(/^is not supported by the linear-time engine/);
  });

  it('reports syntax errors, bad flags, length and size', () => {
    expect(userRegexProblem('(unclosed')).toMatch(/^is not a valid regular expression \(.*missing closing \)/);
    expect(userRegexProblem('abc', 'y')).toBe('has unsupported flags y (use g, i, m, s, u)');
    expect(userRegexProblem('abc', 'ii')).toBe('has unsupported flags ii (use g, i, m, s, u)');
    expect(userRegexProblem('a'.repeat(11), '', { maxLength: 10 })).toBe('is longer than 10 characters');
    expect(userRegexProblem('[a-z]{1000}', '', { maxProgramSize: 500 })).toBe('is too complex (it expands to more than 500 instructions)');
    expect(userRegexProblem('(a{1000}){1000}')).toMatch(/^is not a valid regular expression \(.*repeat count/);
  });
});
