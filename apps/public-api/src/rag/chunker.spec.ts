import { chunkDocument, DEFAULT_CHUNKER_OPTIONS, splitSentences } from './chunker';

/** A paragraph of `n` numbered sentences, each about 60 characters. */
function paragraph(tag: string, n: number): string {
  return Array.from({ length: n }, (_, i) => `Sentence ${i + 1} of ${tag} talks about item number ${1000 + i} here.`).join(' ');
}

describe('splitSentences', () => {
  it('splits at sentence punctuation followed by a capital or digit, not after abbreviations', () => {
    expect(splitSentences('The fee is 12.50 EUR. It is due e.g. Monday. Pay now! 3 days remain? yes')).toEqual(['The fee is 12.50 EUR.', 'It is due e.g. Monday.', 'Pay now!', '3 days remain? yes']);
  });
});

describe('chunkDocument', () => {
  it('keeps a short text in one chunk with its heading', () => {
    const chunks = chunkDocument({ text: '# Leave Policy\n\nEmployees get 30 days of paid leave.', pages: null });
    expect(chunks).toEqual([{ index: 0, page: null, heading: 'Leave Policy', content: 'Leave Policy\n\nEmployees get 30 days of paid leave.' }]);
  });

  it('starts a new chunk at each heading and repeats the heading on later chunks of its section', () => {
    const text = ['TRAVEL RULES', paragraph('travel', 8), '', '2.1 Meal Allowance', paragraph('meals', 30)].join('\n');
    const chunks = chunkDocument({ text, pages: null });
    expect(chunks[0]?.heading).toBe('TRAVEL RULES');
    expect(chunks[0]?.content).toContain('Sentence 8 of travel');
    expect(chunks[0]?.content).not.toContain('meals');
    const meals = chunks.slice(1);
    expect(meals.length).toBeGreaterThanOrEqual(2);
    for (const c of meals) {
      expect(c.heading).toBe('2.1 Meal Allowance');
      expect(c.content.startsWith('2.1 Meal Allowance\n\n')).toBe(true);
    }
    // Every sentence of the section is in some chunk.
    for (let i = 1; i <= 30; i += 1) expect(meals.some((c) => c.content.includes(`Sentence ${i} of meals `))).toBe(true);
  });

  it('bounds chunk size and overlaps consecutive chunks of a section by whole sentences', () => {
    const text = [paragraph('a', 12), paragraph('b', 12), paragraph('c', 12), paragraph('d', 12)].join('\n\n');
    const chunks = chunkDocument({ text, pages: null });
    expect(chunks.length).toBeGreaterThanOrEqual(3);
    const { maxChars, overlapChars } = DEFAULT_CHUNKER_OPTIONS;
    for (const c of chunks) expect(c.content.length).toBeLessThanOrEqual(maxChars + overlapChars + 80);
    for (const c of chunks.slice(0, -1)) expect(c.content.length).toBeGreaterThanOrEqual(DEFAULT_CHUNKER_OPTIONS.targetChars - 100);
    for (let i = 1; i < chunks.length; i += 1) {
      const previous = chunks[i - 1]!.content;
      const lastSentence = splitSentences(previous.split('\n\n').pop()!).pop()!;
      expect(chunks[i]!.content.startsWith(lastSentence) || chunks[i]!.content.includes(`${lastSentence}\n\n`)).toBe(true);
    }
  });

  it('keeps the page each chunk starts on', () => {
    const pages = [
      { page: 1, text: `Leave Policy\n${paragraph('leave', 5)}` },
      { page: 2, text: `Travel Policy\n${paragraph('travel', 5)}` },
      { page: 3, text: 'Security Policy\nThe door code is 4711.' },
    ];
    const chunks = chunkDocument({ text: pages.map((p) => p.text).join('\n\n'), pages });
    expect(chunks.map((c) => [c.page, c.heading])).toEqual([
      [1, 'Leave Policy'],
      [2, 'Travel Policy'],
      [3, 'Security Policy'],
    ]);
    expect(chunks[2]?.content).toBe('Security Policy\n\nThe door code is 4711.');
  });

  it('gives a chunk that starts inside a long page the page of its own first sentence, not of its overlap', () => {
    const pages = [
      { page: 1, text: paragraph('one', 30) },
      { page: 2, text: paragraph('two', 30) },
    ];
    const chunks = chunkDocument({ text: '', pages });
    expect(chunks.length).toBeGreaterThanOrEqual(3);
    chunks.forEach((c, i) => {
      // After the first chunk, the overlap is the first paragraph and the chunk's own text follows.
      const own = i === 0 ? c.content : c.content.split('\n\n')[1]!;
      const tag = / of (one|two) /.exec(own)?.[1];
      expect(c.page).toBe(tag === 'one' ? 1 : 2);
    });
    expect(chunks.map((c) => c.page)).toContain(2);
  });

  it('cuts a sentence longer than the limit at word boundaries', () => {
    const long = Array.from({ length: 400 }, (_, i) => `word${i}`).join(' ');
    const chunks = chunkDocument({ text: long, pages: null });
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.every((c) => c.content.length <= DEFAULT_CHUNKER_OPTIONS.maxChars + DEFAULT_CHUNKER_OPTIONS.overlapChars + 2)).toBe(true);
    expect(chunks.every((c) => !/word\d+word/.test(c.content))).toBe(true);
    expect(chunks.some((c) => c.content.includes('word399'))).toBe(true);
  });

  it('yields nothing for blank text', () => {
    expect(chunkDocument({ text: '  \n\n \t', pages: null })).toEqual([]);
    expect(chunkDocument({ text: '', pages: [{ page: 1, text: '' }] })).toEqual([]);
  });

  it('does not take ordinary short lines for headings', () => {
    const chunks = chunkDocument({ text: 'Invoice number 4711\nTotal due: 99 EUR.\nthank you', pages: null });
    expect(chunks).toHaveLength(1);
    expect(chunks[0]?.heading).toBeNull();
    expect(chunks[0]?.content).toBe('Invoice number 4711 Total due: 99 EUR. thank you');
  });
});
