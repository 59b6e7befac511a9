import { consistentNames } from './name-consistency';
import type { NerSpan } from './types';

function spansOf(text: string, given: [NerSpan['type'], string][]): NerSpan[] {
  let from = 0;
  return given.map(([type, value]) => {
    const start = text.indexOf(value, from);
    from = start + value.length;
    return { type, start, end: start + value.length, score: 0.8 };
  });
}

const shown = (text: string, spans: NerSpan[]) => spans.map((s) => `${s.type}:${text.slice(s.start, s.end)}`);

describe('consistentNames', () => {
  it('gives a surname tagged alone as a firm or a place the type of the person it belongs to', () => {
    const text = 'McDowell was influenced by a song sung by Adam McDowell in 1975; Dublin was his home.';
    const spans = spansOf(text, [
      ['ORGANIZATION', 'McDowell'],
      ['PERSON', 'Adam McDowell'],
      ['LOCATION', 'Dublin'],
    ]);
    expect(shown(text, consistentNames(text, spans))).toEqual(['PERSON:McDowell', 'PERSON:Adam McDowell', 'LOCATION:Dublin']);
  });

  it('leaves longer spans, NRP and one-word people alone', () => {
    const text = 'Lena met Jordan Lee at Lee Holdings; Lee is Korean.';
    const spans = spansOf(text, [
      ['PERSON', 'Lena'],
      ['PERSON', 'Jordan Lee'],
      ['ORGANIZATION', 'Lee Holdings'],
      ['PERSON', 'Lee'],
      ['NRP', 'Korean'],
    ]);
    expect(shown(text, consistentNames(text, spans))).toEqual(['PERSON:Lena', 'PERSON:Jordan Lee', 'ORGANIZATION:Lee Holdings', 'PERSON:Lee', 'NRP:Korean']);
    const alone = 'Paris said Paris was lovely.';
    expect(
      shown(
        alone,
        consistentNames(
          alone,
          spansOf(alone, [
            ['PERSON', 'Paris'],
            ['LOCATION', 'Paris'],
          ]),
        ),
      ),
    ).toEqual(['PERSON:Paris', 'LOCATION:Paris']);
  });
});
