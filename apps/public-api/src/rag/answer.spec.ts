import { citations, extractiveAnswer, groundedMessages } from './answer';

const passages = [
  { n: 1, documentTitle: 'Lisbon handbook', page: 2, content: 'Security\n\nThe door code of the Lisbon office is 4711. Visitors sign in at reception.' },
  { n: 2, documentTitle: 'Porto handbook', page: null, content: 'The door code of the Porto office is 9090. The Porto office opens at eight.' },
];

describe('groundedMessages', () => {
  it('numbers the passages with their document and page, after the question', () => {
    const [system, user] = groundedMessages('What is the door code in Lisbon?', passages);
    expect(system?.role).toBe('system');
    expect(system?.content).toContain('[1]');
    expect(user?.content).toBe(
      'Question: What is the door code in Lisbon?\n\nContext passages:\n\n' +
        '[1] (Lisbon handbook, page 2)\nSecurity\n\nThe door code of the Lisbon office is 4711. Visitors sign in at reception.\n\n' +
        '[2] (Porto handbook)\nThe door code of the Porto office is 9090. The Porto office opens at eight.',
    );
  });
});

describe('extractiveAnswer', () => {
  it('quotes the sentences sharing the most and rarest words with the question, citing their passage', () => {
    expect(extractiveAnswer('What is the door code of the Lisbon office?', passages)).toBe('The door code of the Lisbon office is 4711. [1] The door code of the Porto office is 9090. [2]');
    expect(extractiveAnswer('When does the Porto office open?', passages)).toBe('The Porto office opens at eight. [2] The door code of the Porto office is 9090. [2]');
  });

  it('says so when nothing matches', () => {
    expect(extractiveAnswer('zeppelin schedule', passages)).toBe('The indexed documents do not answer this question.');
    expect(extractiveAnswer('the and of', passages)).toBe('The indexed documents do not answer this question.');
  });
});

describe('citations', () => {
  it('lists the citation numbers used, in order, ignoring ones beyond the sources', () => {
    expect(citations('A [2] and B [1][2], C [7].', 3)).toEqual([2, 1]);
  });
});
