import type { GazetteerHit } from './gazetteer';
import type { Token } from './tokenizer';

/**
 * The features of each token, as strings the model keys its weights by. They
 * describe the word (identity, shape, affixes, case), its neighbours two either
 * side, and the gazetteer lists it and its neighbours fall into. Training and
 * tagging call this same function, so the two can never drift apart.
 */

const SENTENCE_END = new Set(['.', '!', '?', ':', ';', '"', '“', '”', '(', '[', '\n', '•', '-', '–', '—']);

// Endings of street names written as one word in many languages (Hauptstraße, Drottninggatan, Mannerheimintie).
const STREET_ENDINGS = [
  'straße', 'strasse', 'str.', 'gasse', 'weg', 'allee', 'platz', 'gatan', 'vägen', 'gränd', 'katu', 'tie', 'kuja', 'utca', 'straat',
  'laan', 'gracht', 'plein', 'vej', 'gade', 'veien', 'gata', 'ulica', 'gatve', 'iela', 'tänav', 'sokak', 'caddesi', 'bulvar',
];

const YEAR_RE = /^(1[5-9]|20)\d\d$/;
const TIME_RE = /^\d{1,2}[:.h]\d{2}(?:[:.]\d{2})?(?:am|pm)?$/i;
const ORDINAL_RE = /^\d+(st|nd|rd|th)$/i;
const ROMAN_RE = /^[IVX]+$/;

export function shapeOf(word: string): string {
  let out = '';
  let last = '';
  let run = 0;
  for (const ch of word) {
    const c = ch >= '0' && ch <= '9' ? 'd' : ch.toLowerCase() !== ch ? 'X' : ch.toUpperCase() !== ch ? 'x' : /\p{L}/u.test(ch) ? 'l' : ch;
    if (c === last) {
      if (++run > 2) continue;
    } else {
      last = c;
      run = 1;
    }
    out += c;
  }
  return out;
}

/** Case class: T(itle), U(pper), L(ower), M(ixed), N(o letters). */
function caseOf(word: string): string {
  const up = word.toUpperCase();
  const low = word.toLowerCase();
  if (up === low) return 'N';
  if (word === low) return 'L';
  if (word === up) return word.length === 1 ? 'T' : 'U';
  if (word[0] === up[0] && word.slice(1) === low.slice(1)) return 'T';
  return word[0] === up[0] ? 'M' : 'm';
}

function norm(word: string): string {
  const lower = word.toLowerCase();
  return /\d/.test(lower) ? lower.replace(/\d/g, '0') : lower;
}

function gazTags(hits: readonly GazetteerHit[] | undefined): string {
  if (!hits || !hits.length) return '-';
  return hits
    .map((h) => h.list)
    .sort()
    .join('+');
}

export function sentenceFeatures(tokens: readonly Token[], gaz: readonly GazetteerHit[][]): string[][] {
  const n = tokens.length;
  const words = tokens.map((t) => norm(t.text));
  const shapes = tokens.map((t) => shapeOf(t.text));
  const cases = tokens.map((t) => caseOf(t.text));
  const lists = gaz.map(gazTags);
  const w = (i: number): string => (i < 0 ? '<s>' : i >= n ? '</s>' : words[i]!);
  const s = (i: number): string => (i < 0 ? '<s>' : i >= n ? '</s>' : shapes[i]!);
  const c = (i: number): string => (i < 0 ? '<s>' : i >= n ? '</s>' : cases[i]!);
  const g = (i: number): string => (i < 0 || i >= n ? '<s>' : lists[i]!);

  const out: string[][] = [];
  for (let i = 0; i < n; i++) {
    const word = words[i]!;
    const raw = tokens[i]!.text;
    const sentenceStart = i === 0 || SENTENCE_END.has(tokens[i - 1]!.text);
    const f: string[] = [
      'b',
      `w=${word}`,
      `s=${shapes[i]}`,
      `c=${cases[i]}|${sentenceStart ? 1 : 0}`,
      `w-1=${w(i - 1)}`,
      `w+1=${w(i + 1)}`,
      `w-2=${w(i - 2)}`,
      `w+2=${w(i + 2)}`,
      `w-2,-1=${w(i - 2)}|${w(i - 1)}`,
      `w+1,+2=${w(i + 1)}|${w(i + 2)}`,
      `w-1,0=${w(i - 1)}|${word}`,
      `w0,+1=${word}|${w(i + 1)}`,
      `s-1=${s(i - 1)}`,
      `s+1=${s(i + 1)}`,
      `c-1,0,+1=${c(i - 1)}${cases[i]}${c(i + 1)}`,
      `c-2..+2=${c(i - 2)}${c(i - 1)}${cases[i]}${c(i + 1)}${c(i + 2)}`,
      `w-1,c=${w(i - 1)}|${cases[i]}`,
      `c,w+1=${cases[i]}|${w(i + 1)}`,
      `len=${Math.min(raw.length, 12)}`,
    ];
    const letters = word.length;
    if (letters > 2) {
      f.push(`p2=${word.slice(0, 2)}`, `x2=${word.slice(-2)}`);
    }
    if (letters > 3) f.push(`p3=${word.slice(0, 3)}`, `x3=${word.slice(-3)}`);
    if (letters > 4) f.push(`p4=${word.slice(0, 4)}`, `x4=${word.slice(-4)}`);
    if (letters > 5) f.push(`x5=${word.slice(-5)}`);
    if (YEAR_RE.test(raw)) f.push('year');
    if (TIME_RE.test(raw)) f.push('time');
    if (ORDINAL_RE.test(raw)) f.push('ordinal');
    if (ROMAN_RE.test(raw)) f.push('roman');
    if (letters > 4 && STREET_ENDINGS.some((e) => word.endsWith(e))) f.push('streetword');

    // Gazetteers: the lists of this token with its place in the hit, crossed with its case;
    // the lists of its neighbours.
    const hits = gaz[i] ?? [];
    for (const h of hits) {
      f.push(`g=${h.list}:${h.pos}`, `g=${h.list}|${cases[i]}`);
    }
    f.push(`g=${lists[i]}`, `g-1=${g(i - 1)}`, `g+1=${g(i + 1)}`, `g-1,0,+1=${g(i - 1)}/${lists[i]}/${g(i + 1)}`);
    f.push(`g-1,w=${g(i - 1)}|${word}`, `w-1,g=${w(i - 1)}|${lists[i]}`);
    out.push(f);
  }
  return out;
}
