import { globMatches, indexOfKmp } from './glob';

describe('globMatches', () => {
  it.each([
    ['*.pdf', 'report.pdf', true],
    ['*.pdf', 'report.pdf.txt', false],
    ['*.pdf', '.pdf', true],
    ['report*', 'report-2024.docx', true],
    ['*', '', true],
    ['*', 'anything', true],
    ['a*b*c', 'abc', true],
    ['a*b*c', 'axxbyyc', true],
    ['a*b*c', 'acb', false],
    ['a*a', 'a', false],
    ['a*a', 'aa', true],
    ['**', 'x', true],
    ['invoice_*_*.pdf', 'invoice_2024_03.pdf', true],
    ['invoice_*_*.pdf', 'invoice_2024.pdf', false],
    ['application/*', 'application/pdf', true],
    ['image/*', 'application/pdf', false],
    ['exact.txt', 'exact.txt', true],
    ['exact.txt', 'exact.txt2', false],
    // Regex metacharacters are plain characters.
    ['(a+)+$.pdf', '(a+)+$.pdf', true],
    ['[ab].pdf', 'a.pdf', false],
    ['?.pdf', 'a.pdf', false],
  ])('%s against %s is %s', (pattern, text, expected) => {
    expect(globMatches(pattern, text)).toBe(expected);
  });

  it('finds the middle segments in order, each after the previous one', () => {
    expect(globMatches('*ab*ab*', 'xabx')).toBe(false);
    expect(globMatches('*ab*ab*', 'xabxab')).toBe(true);
    expect(globMatches('*aab*', 'aaab')).toBe(true);
  });

  it('does not let the middle segments overlap the suffix', () => {
    expect(globMatches('*abc*c', 'abc')).toBe(false);
    expect(globMatches('*abc*c', 'abcc')).toBe(true);
  });

  it('answers a pathological pattern on a long text (what backtracking matchers choke on)', () => {
    const text = 'a'.repeat(20_000);
    const pattern = `${'*a'.repeat(200)}*b`;
    expect(globMatches(pattern, text)).toBe(false);
    expect(globMatches(`${'*a'.repeat(200)}*`, text)).toBe(true);
  });
});

describe('indexOfKmp', () => {
  it('finds the first occurrence at or after `from` that ends by `end`', () => {
    expect(indexOfKmp('abababc', 'ababc', 0)).toBe(2);
    expect(indexOfKmp('abcabc', 'abc', 1)).toBe(3);
    expect(indexOfKmp('abcabc', 'abc', 1, 5)).toBe(-1);
    expect(indexOfKmp('aaaa', 'aab', 0)).toBe(-1);
  });
});
