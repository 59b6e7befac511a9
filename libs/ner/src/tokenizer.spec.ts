import { tokenize } from './tokenizer';

const texts = (s: string): string[] => tokenize(s).map((t) => t.text);

describe('tokenize', () => {
  it('gives offsets that slice the input back into each token', () => {
    const input = "Zoë Ødegård-Núñez 👍 met Владимир at São Paulo's café — 10:30, 3.5 km.\r\nOK?";
    const tokens = tokenize(input);
    expect(tokens.length).toBeGreaterThan(10);
    for (const t of tokens) expect(input.slice(t.start, t.end)).toBe(t.text);
    // Tokens never overlap and appear in order.
    for (let i = 1; i < tokens.length; i++) expect(tokens[i]!.start).toBeGreaterThanOrEqual(tokens[i - 1]!.end);
  });

  it('counts offsets in UTF-16 code units, as String#slice does', () => {
    const tokens = tokenize('👍👍 Anna');
    expect(tokens.map((t) => [t.text, t.start, t.end])).toEqual([
      ['👍', 0, 2],
      ['👍', 2, 4],
      ['Anna', 5, 9],
    ]);
  });

  it('keeps names with apostrophes, hyphens and accents whole', () => {
    expect(texts("O'Brien and Jean-Pierre Lefèvre-Ölund")).toEqual(["O'Brien", 'and', 'Jean-Pierre', 'Lefèvre-Ölund']);
  });

  it("splits a possessive 's off so that a name can end before it", () => {
    expect(texts("Yefremova's tales, Anna’s book")).toEqual(['Yefremova', "'s", 'tales', ',', 'Anna', '’s', 'book']);
  });

  it('keeps the dot of initials and abbreviations, not of a sentence end', () => {
    expect(texts('Faina D. Yefremova of Acme Inc. lives in Rome.')).toEqual(['Faina', 'D.', 'Yefremova', 'of', 'Acme', 'Inc.', 'lives', 'in', 'Rome', '.']);
    expect(texts('Dr. Smith, U.N. staff, St. Louis')).toEqual(['Dr.', 'Smith', ',', 'U.N.', 'staff', ',', 'St.', 'Louis']);
    expect(texts('9383 ul. Chrzanowska 61, Koepenicker Str. 74')).toEqual(['9383', 'ul.', 'Chrzanowska', '61', ',', 'Koepenicker', 'Str.', '74']);
  });

  it('makes punctuation and line breaks tokens of their own', () => {
    expect(texts('Hi,\n\nAnna (Oslo)!')).toEqual(['Hi', ',', '\n\n', 'Anna', '(', 'Oslo', ')', '!']);
  });

  it('keeps URLs and e-mail addresses whole, without trailing punctuation', () => {
    expect(texts('See https://example.com/a/b?x=1. Mail jean.dupont+x@mail.example.fr, thanks')).toEqual([
      'See',
      'https://example.com/a/b?x=1',
      '.',
      'Mail',
      'jean.dupont+x@mail.example.fr',
      ',',
      'thanks',
    ]);
  });

  it('reads ∆ standing for a Greek delta as a letter', () => {
    expect(texts('from ΚΑΤΩ ΠΟΛΕΜΙ∆ΙΑ, and')).toEqual(['from', 'ΚΑΤΩ', 'ΠΟΛΕΜΙ∆ΙΑ', ',', 'and']);
  });

  it('returns nothing for blank text', () => {
    expect(tokenize('')).toEqual([]);
    expect(tokenize('  \t ')).toEqual([]);
  });
});
