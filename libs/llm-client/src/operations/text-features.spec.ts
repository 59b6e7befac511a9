import { countWords, keyTerms, limitWords } from './text-features';

describe('text features', () => {
  it('counts words without bullet markers and keeps hyphenated and dotted words whole', () => {
    expect(countWords('- First point here.\n- Second, e.g. this one')).toBe(7);
    expect(countWords('state-of-the-art 3.5 GHz')).toBe(3);
    expect(countWords('  ')).toBe(0);
  });

  it('counts a number with thousands separators as one word, and a comma-separated list as several', () => {
    expect(countWords('All 4,200 pallets')).toBe(3);
    expect(countWords('Cost: 1,250.00 EUR, paid 1,000,000 times')).toBe(6);
    expect(countWords('items 1,2,3 and a,b')).toBe(7);
  });

  it('cuts a text to a word limit and says so', () => {
    expect(limitWords('one two three four', 4)).toEqual({ text: 'one two three four', truncated: false });
    expect(limitWords('- one two\n- three four five', 3)).toEqual({ text: '- one two\n- three…', truncated: true });
  });

  it('ranks content words by frequency, then first appearance', () => {
    expect(keyTerms('The invoice total. Invoice vendor: Acme. The total is due; invoice paid.', 3)).toEqual(['invoice', 'total', 'vendor']);
    expect(keyTerms('a an of to', 3)).toEqual([]);
    expect(keyTerms('Grandma’s crumble and grandma’s custard', 1)).toEqual(['grandma']);
  });
});
