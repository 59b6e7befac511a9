import type { TokenSpan } from './address-spans';
import type { GazetteerHit } from './gazetteer';
import type { Token } from './tokenizer';

/** One name word of a firm list: letters (a hyphen or apostrophe inside), no digits. */
const NAME_WORD = /^\p{L}[\p{L}\p{M}'’-]*$/u;
const AND = /^(?:and|&)$/i;

/**
 * Structural cues for ORGANIZATION spans, applied after decoding:
 *
 * - a firm named after its partners, "Barnett, Melton and Garcia" (the form
 *   faker and many real law and accounting firms use), is one ORGANIZATION
 *   when the tagger already called one of the three names a firm; the tagger
 *   sees the names one by one and takes the first ones for people. Lists
 *   of people are left alone: unless one of the words is tagged
 *   ORGANIZATION and none is tagged a place, nothing changes;
 * - a PERSON or LOCATION span that ends in a legal form or an organisation
 *   word ("Northwind Traders", "Wexford Analytics", "Okafor Foundation":
 *   the `orgsuffix` list) is an ORGANIZATION, unless it holds a digit (an
 *   address) or is itself a listed place ("Soviet Union");
 * - a firm's initials in brackets after it, "Eastfield Housing Authority
 *   (EHA)", are an ORGANIZATION too (after a person or a place they are
 *   left as the tagger has them: "United Arab Emirates (UAE)").
 */
export function alignOrganisationSpans(tokens: readonly Token[], hits: readonly GazetteerHit[][], spans: readonly TokenSpan[]): TokenSpan[] {
  let out = spans.map((span) => ((span.type === 'PERSON' || span.type === 'LOCATION') && endsAsFirm(tokens, hits, span) ? { ...span, type: 'ORGANIZATION' as const } : span));
  out = acronymsInBrackets(tokens, out);
  for (const span of [...out]) {
    if (span.type !== 'ORGANIZATION') continue;
    const list = firmList(tokens, span);
    if (!list) continue;
    // Names, not places ("Fagerøy, Zgărdești and Piro" is a list of towns): no word of it in a LOCATION, and no
    // other span running out of it ("..., Angela and Britt-Marie Grouer").
    if (out.some((s) => s.from < list.to && s.to > list.from && (s.type === 'LOCATION' || s.from < list.from || s.to > list.to))) continue;
    const merged: TokenSpan = { type: 'ORGANIZATION', from: list.from, to: list.to, score: span.score };
    out = [...out.filter((s) => s.to <= list.from || s.from >= list.to), merged].sort((a, b) => a.from - b.from);
  }
  return out;
}

/** "A, B and C" (or "A, B & C") around an ORGANIZATION span of one of the three words: its token range. */
function firmList(tokens: readonly Token[], span: TokenSpan): { from: number; to: number } | undefined {
  if (span.to - span.from !== 1) return undefined;
  // The span's word is A, B or C: try each place it could hold.
  for (const offset of [4, 2, 0]) {
    const from = span.from - offset;
    if (from < 0 || from + 5 > tokens.length) continue;
    const [a, comma, b, and, c] = tokens.slice(from, from + 5).map((t) => t.text);
    if (comma !== ',' || !AND.test(and!) || ![a, b, c].every((w) => NAME_WORD.test(w!))) continue;
    // Names of one case: "Barnett, Melton and Garcia" or "hubbard, fox and gillespie", never "Smith, then Garcia".
    if (new Set([a, b, c].map((w) => startsUpper(w!))).size !== 1) continue;
    // Nothing that continues the list before it ("X, Barnett, Melton and Garcia" is a list of four).
    if (from >= 2 && tokens[from - 1]!.text === ',' && NAME_WORD.test(tokens[from - 2]!.text)) return undefined;
    return { from, to: from + 5 };
  }
  return undefined;
}

const startsUpper = (word: string): boolean => word[0] !== word[0]!.toLowerCase();

const PLACE_LISTS = new Set(['country', 'city', 'state', 'region']);
const HAS_DIGIT = /\p{N}/u;

function endsAsFirm(tokens: readonly Token[], hits: readonly GazetteerHit[][], span: TokenSpan): boolean {
  if (span.to - span.from < 2) return false;
  const last = span.to - 1;
  if (!startsUpper(tokens[last]!.text) || !hits[last]?.some((h) => h.list === 'orgsuffix' && (h.pos === 'S' || h.pos === 'E'))) return false;
  for (let i = span.from; i < span.to; i++) if (HAS_DIGIT.test(tokens[i]!.text) || tokens[i]!.text.includes('\n')) return false;
  // The whole span is a listed place ("Soviet Union", "Vatican City"): a place it stays.
  return !(hits[span.from]?.some((h) => PLACE_LISTS.has(h.list) && h.pos === 'B') && hits[last]?.some((h) => PLACE_LISTS.has(h.list) && h.pos === 'E'));
}

const ACRONYM = /^\p{Lu}{2,6}$/u;
const MINOR = /^(?:of|and|for|the|de|du|des|der|für|&)$/i;

/** "Eastfield Housing Authority (EHA)": an ORGANIZATION of two or more words followed by its initials in brackets; the initials become one too. */
function acronymsInBrackets(tokens: readonly Token[], spans: TokenSpan[]): TokenSpan[] {
  const out = [...spans];
  for (let k = 0; k < out.length; k++) {
    const span = out[k]!;
    const open = span.to;
    if (span.type !== 'ORGANIZATION' || span.to - span.from < 2 || tokens[open]?.text !== '(' || tokens[open + 2]?.text !== ')') continue;
    const acronym = tokens[open + 1]!.text;
    if (!ACRONYM.test(acronym)) continue;
    const initials = tokens
      .slice(span.from, span.to)
      .filter((t) => !MINOR.test(t.text))
      .map((t) => t.text[0]!.toUpperCase())
      .join('');
    if (initials !== acronym) continue;
    const inner = out.findIndex((s) => s.from === open + 1 && s.to === open + 2);
    if (inner >= 0) out[inner] = { ...out[inner]!, type: 'ORGANIZATION' };
    else if (!out.some((s) => s.from <= open + 1 && s.to > open + 1)) out.push({ type: 'ORGANIZATION', from: open + 1, to: open + 2, score: span.score });
  }
  return out.sort((a, b) => a.from - b.from);
}
