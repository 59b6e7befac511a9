import { WordAutomaton } from './aho-corasick';

function found(words: string[], text: string): string[] {
  const out: string[] = [];
  new WordAutomaton(words).scan(text, (m) => out.push(`${words[m.pattern]}@${m.start}:${text.slice(m.start, m.end)}`));
  return out.sort();
}

describe('WordAutomaton', () => {
  it('matches case-insensitively on word boundaries only', () => {
    expect(found(['acme', 'project falcon'], 'ACME Corp and Project Falcon, not acmes or subacme.')).toEqual(['acme@0:ACME', 'project falcon@14:Project Falcon']);
  });

  it('finds overlapping and nested words (the engine picks among them later)', () => {
    expect(found(['he', 'she', 'his', 'hers', 'she sells'], 'she sells')).toEqual(['she sells@0:she sells', 'she@0:she']);
  });

  it('keeps offsets of the original text with non-ASCII letters and surrogate pairs', () => {
    const text = '😀 Zoë Müller met ÉCOLE';
    expect(found(['zoë müller', 'école'], text)).toEqual(['zoë müller@3:Zoë Müller', 'école@18:ÉCOLE']);
  });

  it('follows failure links (abcd vs bc)', () => {
    expect(found(['abcx', 'bc'], 'a bc abcx abcd')).toEqual(['abcx@5:abcx', 'bc@2:bc']);
  });

  it('handles 100,000 entries', () => {
    const words = Array.from({ length: 100_000 }, (_, i) => `client${i.toString(36)}`);
    const automaton = new WordAutomaton(words);
    const hits: number[] = [];
    const k = 54_321;
    automaton.scan(`Ask ${words[k]} and CLIENT0 but not ${words[k]}z.`, (m) => hits.push(m.pattern));
    expect(hits.sort((a, b) => a - b)).toEqual([0, k]);
  });
});
