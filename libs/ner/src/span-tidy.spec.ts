import type { TokenSpan } from './address-spans';
import { tidySpans } from './span-tidy';
import { tokenize } from './tokenizer';

/** Spans given as [type, first token text, last token text]; answers "TYPE:text" of what tidySpans keeps. */
function tidy(text: string, spans: [TokenSpan['type'], string, string][]): string[] {
  const tokens = tokenize(text);
  const index = (word: string, from = 0) => tokens.findIndex((t, i) => i >= from && t.text === word);
  const decoded = spans.map(([type, first, last]) => {
    const from = index(first);
    return { type, from, to: index(last, from) + 1, score: 0.8 };
  });
  return tidySpans(tokens, decoded).map((s) => `${s.type}:${text.slice(tokens[s.from]!.start, tokens[s.to - 1]!.end)}`);
}

describe('tidySpans', () => {
  it('drops punctuation and line breaks at the edges of a span', () => {
    expect(tidy('- Anna Berg\n- Jacobs VZW', [['ORGANIZATION', '\n', 'VZW']])).toEqual(['ORGANIZATION:Jacobs VZW']);
    expect(tidy('Candidates: Jan Holm (Tory), Eva Lind', [['NRP', 'Tory', ')']])).toEqual(['NRP:Tory']);
    expect(tidy('a - b', [['PERSON', '-', '-']])).toEqual([]);
  });

  it('keeps a dot, and a closing parenthesis whose opening one is inside', () => {
    expect(tidy('We bought it from Acme Inc. today', [['ORGANIZATION', 'Acme', 'Inc.']])).toEqual(['ORGANIZATION:Acme Inc.']);
    expect(tidy('Address: 3565 Main 2, Cyprus (Greek) 13429', [['LOCATION', '3565', ')']])).toEqual(['LOCATION:3565 Main 2, Cyprus (Greek)']);
  });

  it('joins two PERSON spans one space apart, and nothing else', () => {
    expect(
      tidy('Daniel Faure | Medical treasurer', [
        ['PERSON', 'Daniel', 'Daniel'],
        ['PERSON', 'Faure', 'Faure'],
      ]),
    ).toEqual(['PERSON:Daniel Faure']);
    expect(
      tidy('Daniel, Faure', [
        ['PERSON', 'Daniel', 'Daniel'],
        ['PERSON', 'Faure', 'Faure'],
      ]),
    ).toEqual(['PERSON:Daniel', 'PERSON:Faure']);
    expect(
      tidy('Daniel\nFaure', [
        ['PERSON', 'Daniel', 'Daniel'],
        ['PERSON', 'Faure', 'Faure'],
      ]),
    ).toEqual(['PERSON:Daniel', 'PERSON:Faure']);
    expect(
      tidy('Paris Lyon', [
        ['LOCATION', 'Paris', 'Paris'],
        ['LOCATION', 'Lyon', 'Lyon'],
      ]),
    ).toEqual(['LOCATION:Paris', 'LOCATION:Lyon']);
  });

  it('drops a possessive determiner before a name, but keeps a lone word', () => {
    expect(tidy('His Pleasantlyinsects Clinic resignation letter was gone.', [['ORGANIZATION', 'His', 'Clinic']])).toEqual(['ORGANIZATION:Pleasantlyinsects Clinic']);
    expect(tidy('Her Allianz account is gone.', [['ORGANIZATION', 'Her', 'Allianz']])).toEqual(['ORGANIZATION:Allianz']);
    expect(tidy('Ask Her', [['PERSON', 'Her', 'Her']])).toEqual(['PERSON:Her']);
  });

  it('drops a firm that is digits and one letter (a seat), and keeps one with more letters', () => {
    expect(tidy('Passenger Ana Lind, seat 11A, flight to Oslo.', [['ORGANIZATION', '11A', '11A']])).toEqual([]);
    expect(tidy('We bought it from 3Com today', [['ORGANIZATION', '3Com', '3Com']])).toEqual(['ORGANIZATION:3Com']);
    expect(tidy('Gate 11A', [['LOCATION', '11A', '11A']])).toEqual(['LOCATION:11A']);
  });
});
