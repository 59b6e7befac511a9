import { loadNerTagger, NER_ENTITY_TYPES, type NerSpan } from './index';

// The shipped model on sentences written for this test: obvious cases that any
// usable model must get, not a measure of quality (that is bench/ner.bench.ts).
describe('the shipped NER model', () => {
  const tagger = loadNerTagger();
  const found = (text: string): string[] => tagger.tag(text).map((s) => `${s.type}:${text.slice(s.start, s.end)}`);

  it('is loaded once and cached', () => {
    expect(loadNerTagger()).toBe(tagger);
  });

  it('finds people, places and organisations in plain sentences', () => {
    expect(found('Please send the contract to Maria Gonzalez before Friday.')).toContain('PERSON:Maria Gonzalez');
    expect(found('We moved from Berlin to Lisbon last year.')).toEqual(expect.arrayContaining(['LOCATION:Berlin', 'LOCATION:Lisbon']));
    expect(found('She has worked at Siemens since 2015.')).toEqual(expect.arrayContaining(['ORGANIZATION:Siemens', 'DATE_TIME:2015']));
    expect(found('Dear Mr. Thompson, thank you for your letter.')).toContain('PERSON:Thompson');
    expect(found('The applicant is Brazilian and lives in Canada.')).toEqual(expect.arrayContaining(['NRP:Brazilian', 'LOCATION:Canada']));
  });

  it('keeps honorifics and possessives outside the name', () => {
    expect(found("Dr. Helena Novak's report was approved.")).toContain('PERSON:Helena Novak');
  });

  it('finds nothing in text without entities', () => {
    expect(found('The printer on the second floor is out of paper again.')).toEqual([]);
    expect(tagger.tag('')).toEqual([]);
  });

  it('returns spans whose offsets slice the input exactly, in order, with scores in [0.5, 1]', () => {
    const text = 'Zoë Ødegård (née Núñez) 👍 flew from São Paulo to Kraków with Kenji Watanabe of Toyota on 12 May 2023.\nThanks, Olga';
    const spans = tagger.tag(text);
    expect(spans.length).toBeGreaterThanOrEqual(4);
    let last = 0;
    for (const s of spans as NerSpan[]) {
      expect(NER_ENTITY_TYPES).toContain(s.type);
      expect(s.start).toBeGreaterThanOrEqual(last);
      expect(s.end).toBeGreaterThan(s.start);
      const value = text.slice(s.start, s.end);
      expect(value).toBe(value.trim());
      expect(s.score).toBeGreaterThanOrEqual(0.5);
      expect(s.score).toBeLessThanOrEqual(1);
      last = s.end;
    }
    expect(found(text)).toEqual(expect.arrayContaining(['LOCATION:São Paulo', 'LOCATION:Kraków', 'PERSON:Kenji Watanabe']));
  });

  it('tags a long text in pieces without losing offsets', () => {
    const sentence = 'Anna Kowalski visited Warsaw. ';
    const text = sentence.repeat(300);
    const people = tagger.tag(text).filter((s) => s.type === 'PERSON');
    expect(people).toHaveLength(300);
    expect(people[299]!.start).toBe(299 * sentence.length);
  });
});
