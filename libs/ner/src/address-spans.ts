import type { GazetteerHit } from './gazetteer';
import type { Token } from './tokenizer';
import type { NerEntityType } from './types';

/** A tagged span over token indexes [from, to). */
export interface TokenSpan {
  type: NerEntityType;
  from: number;
  to: number;
  score: number;
}

const DIGITS = /^\d+$/;
/** II to XXXIX: I, V and X in a valid order, two letters at least (L and C would take names such as "LI"). */
const ROMAN_NUMERAL = /^(?=[IVX]{2,}$)X{0,3}(?:IX|IV|V?I{0,3})$/;
/** Street words of Hungarian addresses (utca, út, tér, körút, köz, sor and their abbreviations). */
const HUNGARIAN_STREET = /^(?:u\.|utca|út|útja|tér|tere|krt\.|körút|köz|sor|sétány|fasor|rakpart)$/i;
const LINE_OR_LIST_BREAK = /^(?:[\r\n]+|,)$/;

const inList = (hits: readonly GazetteerHit[] | undefined, list: string) => !!hits?.some((h) => h.list === list);

/**
 * The address convention of the labelled data this tagger is measured on
 * (docs/decisions.md, "Data Shield: address spans"), applied to LOCATION
 * spans after decoding:
 *
 * - a street type after a street that is already complete (it ends in a
 *   house number, or it already has its street word: "Via Tasso 129 street",
 *   "90 Whitchurch Road street") is the sentence's word, not the address's;
 * - a postcode in front of a one-line street with its house number
 *   ("74678 Midtvollen 130", "13813 3784 Archwood Avenue", "8116 56 rue La
 *   Boétie") is a value of its own, so the two are two spans;
 * - "the corner of A and B" is one place, the crossing, from "the corner".
 *
 * - "A and <street> <number>" ("Leon and Eyrarodda 66", "Fifth and Main
 *   12") names a crossing: one LOCATION from A;
 * - a parenthesis and a postcode after an address ("..., Cyprus (Greek)
 *   13475") still belong to it.
 *
 * Whole addresses over several lines stay one span.
 */
export function alignAddressSpans(tokens: readonly Token[], hits: readonly GazetteerHit[][], spans: readonly TokenSpan[]): TokenSpan[] {
  const isStreet = (i: number) => inList(hits[i], 'street');
  const isUnit = (i: number) => inList(hits[i], 'unit');
  const text = (i: number) => tokens[i]?.text ?? '';
  const out: TokenSpan[] = [];
  for (const span of extendAddresses(tokens, hits, mergeIntersections(tokens, mergeCorners(tokens, hits, spans)))) {
    if (span.type !== 'LOCATION') {
      // A Roman numeral alone ("Title VII", "Henry VIII" keeps its name) is a number, not a name.
      if (span.to - span.from === 1 && ROMAN_NUMERAL.test(text(span.from))) continue;
      out.push(span);
      continue;
    }
    let { from, to } = span;
    // A Hungarian house number is written with its dot ("Király u. 15.", "Árpád fejedelem útja 62."): the dot is the address's.
    if (DIGITS.test(text(to - 1)) && text(to) === '.' && tokens[to]!.start === tokens[to - 1]!.end && tokens.slice(from, to - 1).some((t) => HUNGARIAN_STREET.test(t.text))) to += 1;
    // A trailing street word after a complete street (not the second street of a crossing: "... and Komel Club").
    const last = to - 1;
    if (to - from >= 3 && isStreet(last) && !CROSSINGS.has(span)) {
      let lineStart = last - 1;
      while (lineStart > from && !LINE_OR_LIST_BREAK.test(text(lineStart - 1))) lineStart--;
      let hasStreet = false;
      for (let i = lineStart; i < last; i++) if (isStreet(i)) hasStreet = true;
      if (DIGITS.test(text(last - 1)) || hasStreet) to = last;
    }
    // A postcode before a one-line street with its house number.
    if (to - from >= 3 && DIGITS.test(text(from))) {
      let oneLine = true;
      let number = false;
      let word = false;
      let unit = false;
      for (let i = from + 1; i < to; i++) {
        if (LINE_OR_LIST_BREAK.test(text(i))) oneLine = false;
        if (DIGITS.test(text(i))) number = true;
        else if (/\p{L}/u.test(text(i))) word = true;
        if (isUnit(i)) unit = true;
      }
      // The street ends in its house number or its street word, or starts with its number and a street word ("56 rue La Boétie").
      const endsAsStreet = DIGITS.test(text(to - 1)) || isStreet(to - 1) || (DIGITS.test(text(from + 1)) && isStreet(from + 2));
      if (oneLine && number && word && !unit && endsAsStreet) {
        out.push({ ...span, from, to: from + 1 });
        from += 1;
      }
    }
    out.push({ ...span, from, to });
  }
  return out;
}

const CAPITALISED = /^\p{Lu}/u;
/** Spans mergeCorners made: their last street word is the second street's own. */
const CROSSINGS = new WeakSet<TokenSpan>();

/**
 * "[the] corner of <LOCATION> and <LOCATION or ORGANIZATION>" → one LOCATION from "the" (or "corner"),
 * up to the street words that follow the second street ("and Komel Club", "and Frederikke Coves").
 */
function mergeCorners(tokens: readonly Token[], hits: readonly GazetteerHit[][], spans: readonly TokenSpan[]): TokenSpan[] {
  const out: TokenSpan[] = [];
  const lower = (i: number) => tokens[i]?.text.toLowerCase() ?? '';
  for (let k = 0; k < spans.length; k++) {
    const a = spans[k]!;
    const b = spans[k + 1];
    const corner = a.type === 'LOCATION' && lower(a.from - 1) === 'of' && lower(a.from - 2) === 'corner';
    if (corner && b && (b.type === 'LOCATION' || b.type === 'ORGANIZATION' || b.type === 'PERSON') && b.from === a.to + 1 && lower(a.to) === 'and') {
      const from = lower(a.from - 3) === 'the' ? a.from - 3 : a.from - 2;
      let to = b.to;
      k++;
      while (to < tokens.length && CAPITALISED.test(tokens[to]!.text) && inList(hits[to], 'street')) {
        // A street word the tagger took for a span of its own ("Club" as an ORGANIZATION) joins too.
        const next = spans[k + 1];
        if (next && next.from === to) {
          if (next.to !== to + 1) break;
          k++;
        }
        to++;
      }
      const crossing: TokenSpan = { type: 'LOCATION', from, to, score: Math.min(a.score, b.score) };
      CROSSINGS.add(crossing);
      out.push(crossing);
      continue;
    }
    out.push(a);
  }
  return out;
}

/**
 * "A and <street> <number>": a lone capitalised word, "and", then a street
 * with its house number that does not start with a number is a crossing
 * ("Leon and Eyrarodda 66"), one LOCATION. A word before A that is
 * capitalised or a comma makes A part of a list, which is left alone.
 */
function mergeIntersections(tokens: readonly Token[], spans: readonly TokenSpan[]): TokenSpan[] {
  const text = (i: number) => tokens[i]?.text ?? '';
  const out: TokenSpan[] = [];
  for (const b of spans) {
    const a = b.from - 2;
    const street = b.type === 'LOCATION' && b.to - b.from >= 2 && text(b.from - 1).toLowerCase() === 'and' && !DIGITS.test(text(b.from)) && DIGITS.test(text(b.to - 1));
    const lone = a >= 0 && CAPITALISED.test(text(a)) && /^\p{L}+$/u.test(text(a)) && !CAPITALISED.test(text(a - 1)) && text(a - 1) !== ',' && text(a - 1) !== '&';
    if (!street || !lone) {
      out.push(b);
      continue;
    }
    // A, tagged or not, joins the street.
    const previous = out[out.length - 1];
    if (previous && previous.from === a && previous.to === a + 1) out.pop();
    else if (previous && previous.to > a) {
      out.push(b);
      continue;
    }
    out.push({ ...b, from: a });
  }
  return out;
}

/**
 * An address (a LOCATION holding a number or a line break) followed on its
 * line by a parenthesis and perhaps a postcode ("Cyprus (Greek) 13475")
 * takes them in; a span inside them (NRP "Greek") goes.
 */
function extendAddresses(tokens: readonly Token[], hits: readonly GazetteerHit[][], spans: readonly TokenSpan[]): TokenSpan[] {
  const text = (i: number) => tokens[i]?.text ?? '';
  const out: TokenSpan[] = [];
  let coveredTo = -1;
  for (const span of spans) {
    if (span.to <= coveredTo) continue;
    if (span.type !== 'LOCATION') {
      out.push(span);
      continue;
    }
    let address = false;
    for (let i = span.from; i < span.to; i++) if (DIGITS.test(text(i)) || /^[\r\n]/.test(text(i))) address = true;
    let to = span.to;
    if (address && text(to) === '(') {
      let close = to + 1;
      while (close < tokens.length && close - to <= 4 && /^\p{L}/u.test(text(close))) close++;
      if (text(close) === ')' && close > to + 1) {
        to = close + 1;
        if (DIGITS.test(text(to)) && !inList(hits[to], 'street')) to++;
      }
    }
    const extended = to === span.to ? span : { ...span, to };
    if (CROSSINGS.has(span)) CROSSINGS.add(extended);
    out.push(extended);
    coveredTo = to;
  }
  return out;
}
