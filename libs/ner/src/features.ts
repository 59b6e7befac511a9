import type { GazetteerHit } from './gazetteer';
import type { Token } from './tokenizer';

/**
 * The features of each token, as strings the model keys its weights by. They
 * describe the word (identity, shape, affixes, case), its neighbours two either
 * side, and the gazetteer lists it and its neighbours fall into. Training and
 * tagging call this same function, so the two can never drift apart.
 */

const SENTENCE_END = new Set(['.', '!', '?', ':', ';', '"', '“', '”', '(', '[', '•', '-', '–', '—']);

// Endings of street names written as one word in many languages (Hauptstraße, Drottninggatan, Mannerheimintie).
const STREET_ENDINGS = [
  'straße',
  'strasse',
  'str.',
  'gasse',
  'weg',
  'allee',
  'platz',
  'gatan',
  'vägen',
  'gränd',
  'katu',
  'tie',
  'kuja',
  'utca',
  'straat',
  'laan',
  'gracht',
  'plein',
  'vej',
  'gade',
  'veien',
  'gata',
  'ulica',
  'gatve',
  'iela',
  'tänav',
  'sokak',
  'caddesi',
  'bulvar',
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
  if (hits.length === 1) return hits[0]!.list;
  return hits
    .map((h) => h.list)
    .sort()
    .join('+');
}

// Features are 32-bit hashes of (template, values), never strings: building and
// hashing ~50 strings per token was most of the tagging time. Training hashes
// the same way, so colliding features (rare among ~10^6) simply share a weight.
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

export function hashString(s: string): number {
  let h = FNV_OFFSET;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), FNV_PRIME);
  return h >>> 0;
}

/** Combines a template id (or an earlier combination) with a value's hash. */
function mix(a: number, b: number): number {
  let h = Math.imul(a ^ (b + 0x9e3779b9 + (a << 6) + (a >>> 2)), 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

// Feature templates; the numbers only need to differ.
const enum T {
  Bias = 1,
  Word,
  Shape,
  CaseStart,
  WordM1,
  WordP1,
  WordM2,
  WordP2,
  WordsM2M1,
  WordsP1P2,
  WordsM10,
  Words0P1,
  ShapeM1,
  ShapeP1,
  Cases3,
  Cases5,
  WordM1Case,
  CaseWordP1,
  Len,
  Prefix2,
  Prefix3,
  Prefix4,
  Suffix2,
  Suffix3,
  Suffix4,
  Suffix5,
  Year,
  Time,
  Ordinal,
  Roman,
  StreetWord,
  Email,
  Url,
  GazPos,
  GazCase,
  Gaz,
  GazM1,
  GazP1,
  Gaz3,
  GazM1Word,
  WordM1Gaz,
}

const BOS = hashString('<s>');
const EOS = hashString('</s>');

/**
 * The features of each token as hashes (see above): the word (identity,
 * shape, affixes, case), its neighbours two either side, and the gazetteer
 * lists it and its neighbours fall into. Training and tagging call this same
 * function, so the two can never drift apart.
 */
export function sentenceFeatures(tokens: readonly Token[], gaz: readonly GazetteerHit[][], forgotten?: ReadonlyMap<number, number>): number[][] {
  const { hashes, offsets } = sentenceFeatureRows(tokens, gaz, forgotten);
  const out: number[][] = new Array<number[]>(tokens.length);
  for (let i = 0; i < tokens.length; i++) out[i] = hashes.slice(offsets[i]!, offsets[i + 1]!);
  return out;
}

/** Every token's features, flat: token i's are hashes[offsets[i]] up to hashes[offsets[i + 1]]. */
export interface FeatureRows {
  hashes: number[];
  offsets: Int32Array;
}

/**
 * sentenceFeatures without an array per token (the tagger's form: one array
 * for the whole sentence, which halves the garbage a call leaves). The same
 * features in the same order.
 */
export function sentenceFeatureRows(
  tokens: readonly Token[],
  gaz: readonly GazetteerHit[][],
  /**
   * Training only (word dropout): token index → a random number that stands
   * for the token's word in every feature that names the word, its own and
   * its neighbours'. Such features occur once, fall under the trainer's
   * minimum count and vanish, as they do for a word the model never saw; the
   * token keeps its shape, affixes, case and gazetteer features.
   */
  forgotten?: ReadonlyMap<number, number>,
): FeatureRows {
  const n = tokens.length;
  const words: string[] = new Array<string>(n);
  const hw = new Uint32Array(n + 4);
  const hs = new Uint32Array(n + 4);
  const hc = new Uint32Array(n + 4);
  const hg = new Uint32Array(n + 4);
  const cases: string[] = new Array<string>(n);
  const lists: string[] = new Array<string>(n);
  // Index i + 2 holds token i; two boundary slots either side.
  hw[0] = hw[1] = hs[0] = hs[1] = hc[0] = hc[1] = hg[0] = hg[1] = BOS;
  hw[n + 2] = hw[n + 3] = hs[n + 2] = hs[n + 3] = hc[n + 2] = hc[n + 3] = hg[n + 2] = hg[n + 3] = EOS;
  for (let i = 0; i < n; i++) {
    const raw = tokens[i]!.text;
    words[i] = norm(raw);
    cases[i] = caseOf(raw);
    lists[i] = gazTags(gaz[i]);
    hw[i + 2] = forgotten?.get(i) ?? hashString(words[i]!);
    hs[i + 2] = hashString(shapeOf(raw));
    hc[i + 2] = hashString(cases[i]!);
    hg[i + 2] = hashString(lists[i]!);
  }

  const f: number[] = [];
  const offsets = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) {
    offsets[i] = f.length;
    const k = i + 2;
    const word = words[i]!;
    const raw = tokens[i]!.text;
    const prev = i === 0 ? '' : tokens[i - 1]!.text;
    const sentenceStart = i === 0 || SENTENCE_END.has(prev) || prev[0] === '\n' || prev[0] === '\r';
    f.push(
      T.Bias,
      mix(T.Word, hw[k]!),
      mix(T.Shape, hs[k]!),
      mix(mix(T.CaseStart, hc[k]!), sentenceStart ? 1 : 0),
      mix(T.WordM1, hw[k - 1]!),
      mix(T.WordP1, hw[k + 1]!),
      mix(T.WordM2, hw[k - 2]!),
      mix(T.WordP2, hw[k + 2]!),
      mix(mix(T.WordsM2M1, hw[k - 2]!), hw[k - 1]!),
      mix(mix(T.WordsP1P2, hw[k + 1]!), hw[k + 2]!),
      mix(mix(T.WordsM10, hw[k - 1]!), hw[k]!),
      mix(mix(T.Words0P1, hw[k]!), hw[k + 1]!),
      mix(T.ShapeM1, hs[k - 1]!),
      mix(T.ShapeP1, hs[k + 1]!),
      mix(mix(mix(T.Cases3, hc[k - 1]!), hc[k]!), hc[k + 1]!),
      mix(mix(mix(mix(mix(T.Cases5, hc[k - 2]!), hc[k - 1]!), hc[k]!), hc[k + 1]!), hc[k + 2]!),
      mix(mix(T.WordM1Case, hw[k - 1]!), hc[k]!),
      mix(mix(T.CaseWordP1, hc[k]!), hw[k + 1]!),
      mix(T.Len, Math.min(raw.length, 12)),
    );
    const letters = word.length;
    if (letters > 2) f.push(mix(T.Prefix2, hashString(word.slice(0, 2))), mix(T.Suffix2, hashString(word.slice(-2))));
    if (letters > 3) f.push(mix(T.Prefix3, hashString(word.slice(0, 3))), mix(T.Suffix3, hashString(word.slice(-3))));
    if (letters > 4) f.push(mix(T.Prefix4, hashString(word.slice(0, 4))), mix(T.Suffix4, hashString(word.slice(-4))));
    if (letters > 5) f.push(mix(T.Suffix5, hashString(word.slice(-5))));
    if (YEAR_RE.test(raw)) f.push(T.Year);
    if (TIME_RE.test(raw)) f.push(T.Time);
    if (ORDINAL_RE.test(raw)) f.push(T.Ordinal);
    if (ROMAN_RE.test(raw)) f.push(T.Roman);
    if (raw.includes('@')) f.push(T.Email);
    if (raw.includes('://')) f.push(T.Url);
    if (letters > 4 && STREET_ENDINGS.some((e) => word.endsWith(e))) f.push(T.StreetWord);

    // Gazetteers: the lists of this token with its place in the hit, crossed with its case;
    // the lists of its neighbours.
    for (const h of gaz[i] ?? []) {
      const list = hashString(h.list);
      f.push(mix(mix(T.GazPos, list), h.pos.charCodeAt(0)), mix(mix(T.GazCase, list), hc[k]!));
    }
    f.push(
      mix(T.Gaz, hg[k]!),
      mix(T.GazM1, hg[k - 1]!),
      mix(T.GazP1, hg[k + 1]!),
      mix(mix(mix(T.Gaz3, hg[k - 1]!), hg[k]!), hg[k + 1]!),
      mix(mix(T.GazM1Word, hg[k - 1]!), hw[k]!),
      mix(mix(T.WordM1Gaz, hw[k - 1]!), hg[k]!),
    );
  }
  offsets[n] = f.length;
  return { hashes: f, offsets };
}
