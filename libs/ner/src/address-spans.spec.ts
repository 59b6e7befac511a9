import { alignAddressSpans, type TokenSpan } from './address-spans';
import type { GazetteerHit } from './gazetteer';
import { tokenize } from './tokenizer';

const STREET = new Set(['street', 'st.', 'avenue', 'road', 'rue', 'club', 'corner']);
const UNIT = new Set(['apt.', 'suite']);

/** Tags every token of `text` from `first` to the end (or to `last`) as one span and aligns it. */
function align(text: string, spans: (tokens: ReturnType<typeof tokenize>) => TokenSpan[]): string[] {
  const tokens = tokenize(text);
  const hits: GazetteerHit[][] = tokens.map((t) => {
    const w = t.text.toLowerCase();
    return STREET.has(w) ? [{ list: 'street', pos: 'S' }] : UNIT.has(w) ? [{ list: 'unit', pos: 'S' }] : [];
  });
  return alignAddressSpans(tokens, hits, spans(tokens)).map((s) => `${s.type}:${text.slice(tokens[s.from]!.start, tokens[s.to - 1]!.end)}`);
}
const at = (tokens: ReturnType<typeof tokenize>, word: string) => tokens.findIndex((t) => t.text === word);
const location = (from: number, to: number): TokenSpan => ({ type: 'LOCATION', from, to, score: 0.8 });

describe('alignAddressSpans', () => {
  it('leaves the street word after a complete street out', () => {
    expect(align('She lives on Via Tasso 129 street.', (t) => [location(at(t, 'Via'), at(t, 'street') + 1)])).toEqual(['LOCATION:Via Tasso 129']);
    expect(align('He lives on 90 Whitchurch Road street.', (t) => [location(at(t, '90'), at(t, 'street') + 1)])).toEqual(['LOCATION:90 Whitchurch Road']);
    expect(align('Enter on 137 Avenue Teboulbi St. today', (t) => [location(at(t, '137'), at(t, 'St.') + 1)])).toEqual(['LOCATION:137 Avenue Teboulbi']);
  });

  it('keeps the dot of a Hungarian house number, and only there', () => {
    expect(align('The office is at Király u. 15. Come by.', (t) => [location(at(t, 'Király'), at(t, '15') + 1)])).toEqual(['LOCATION:Király u. 15.']);
    expect(align('Drop at Árpád fejedelem útja 62. St.', (t) => [location(at(t, 'Árpád'), at(t, '62') + 1)])).toEqual(['LOCATION:Árpád fejedelem útja 62.']);
    expect(align('She lives at Baker Street 7. Come by.', (t) => [location(at(t, 'Baker'), at(t, '7') + 1)])).toEqual(['LOCATION:Baker Street 7']);
  });

  it('drops a name that is only a Roman numeral, not a name that holds one', () => {
    const person = (from: number, to: number): TokenSpan => ({ type: 'PERSON', from, to, score: 0.8 });
    expect(align('Title VII of the Act applies.', (t) => [person(at(t, 'VII'), at(t, 'VII') + 1)])).toEqual([]);
    expect(align('Henry VIII and LI Wei met.', (t) => [person(at(t, 'Henry'), at(t, 'VIII') + 1), person(at(t, 'LI'), at(t, 'LI') + 1)])).toEqual(['PERSON:Henry VIII', 'PERSON:LI']);
  });

  it('keeps a street word that is the only one', () => {
    expect(align('He lives on 12 Baker Street now.', (t) => [location(at(t, '12'), at(t, 'Street') + 1)])).toEqual(['LOCATION:12 Baker Street']);
  });

  it('splits a postcode from a one-line street with its number, not from a whole address', () => {
    expect(align('Drop off at 74678 Midtvollen 130 St.', (t) => [location(at(t, '74678'), at(t, 'St.') + 1)])).toEqual(['LOCATION:74678', 'LOCATION:Midtvollen 130']);
    expect(align('Drop off at 8116 56 rue La Boétie St.', (t) => [location(at(t, '8116'), at(t, 'Boétie') + 1)])).toEqual(['LOCATION:8116', 'LOCATION:56 rue La Boétie']);
    expect(align('Send it to 17031 2202 Rissik St Apt. 050 Coalville', (t) => [location(at(t, '17031'), t.length)])).toEqual(['LOCATION:17031 2202 Rissik St Apt. 050 Coalville']);
    expect(align('Send it to 1987 74 Diakou Street\n Suite 680\n Kissousa', (t) => [location(at(t, '1987'), t.length)])).toEqual(['LOCATION:1987 74 Diakou Street\n Suite 680\n Kissousa']);
  });

  it('makes "the corner of A and B" one location', () => {
    expect(
      align('It is the corner of Dalbraut 99 and Frederikke Coves', (t) => [
        location(at(t, 'Dalbraut'), at(t, '99') + 1),
        { type: 'ORGANIZATION', from: at(t, 'Frederikke'), to: t.length, score: 0.7 },
      ]),
    ).toEqual(['LOCATION:the corner of Dalbraut 99 and Frederikke Coves']);
  });
  it('takes the street words after the second street of a corner', () => {
    expect(
      align('It is the corner of Bygget 64 and Komel Club', (t) => [location(at(t, 'Bygget'), at(t, '64') + 1), { type: 'PERSON', from: at(t, 'Komel'), to: at(t, 'Komel') + 1, score: 0.7 }]),
    ).toEqual(['LOCATION:the corner of Bygget 64 and Komel Club']);
    expect(
      align('It is the corner of Bygget 64 and Komel Club', (t) => [
        location(at(t, 'Bygget'), at(t, '64') + 1),
        { type: 'PERSON', from: at(t, 'Komel'), to: at(t, 'Komel') + 1, score: 0.7 },
        { type: 'ORGANIZATION', from: at(t, 'Club'), to: at(t, 'Club') + 1, score: 0.6 },
      ]),
    ).toEqual(['LOCATION:the corner of Bygget 64 and Komel Club']);
  });

  it('makes "A and <street> <number>" one crossing, but not a list of names', () => {
    expect(
      align('Please return to Leon and Eyrarodda 66 soon.', (t) => [{ type: 'PERSON', from: at(t, 'Leon'), to: at(t, 'Leon') + 1, score: 0.7 }, location(at(t, 'Eyrarodda'), at(t, '66') + 1)]),
    ).toEqual(['LOCATION:Leon and Eyrarodda 66']);
    expect(align('Ship to Růžena and Király u. 15 now', (t) => [location(at(t, 'Király'), at(t, '15') + 1)])).toEqual(['LOCATION:Růžena and Király u. 15']);
    expect(align('Ask Anna, Leon and Main Street 5 people', (t) => [{ type: 'PERSON', from: at(t, 'Leon'), to: at(t, 'Leon') + 1, score: 0.7 }, location(at(t, 'Main'), at(t, '5') + 1)])).toEqual([
      'PERSON:Leon',
      'LOCATION:Main Street 5',
    ]);
    expect(align('Go to Leon and 12 Main Street', (t) => [location(at(t, '12'), t.length)])).toEqual(['LOCATION:12 Main Street']);
  });

  it('keeps a parenthesis and the postcode after an address in it, and drops the span inside', () => {
    expect(
      align('Send it to 2505 Heatherleigh Suite 620, PAFOS, Cyprus (Greek) 13475 today', (t) => [
        location(at(t, '2505'), at(t, 'Cyprus') + 1),
        { type: 'NRP', from: at(t, 'Greek'), to: at(t, 'Greek') + 1, score: 0.7 },
      ]),
    ).toEqual(['LOCATION:2505 Heatherleigh Suite 620, PAFOS, Cyprus (Greek) 13475']);
    expect(align('I was in Paris (France) 2019', (t) => [location(at(t, 'Paris'), at(t, 'Paris') + 1)])).toEqual(['LOCATION:Paris']);
  });
});
