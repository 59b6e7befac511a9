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
 *   ("74678 Midtvollen 130", "13813 3784 Archwood Avenue") is a value of its
 *   own, so the two are two spans;
 * - "the corner of A and B" is one place, the crossing, from "the corner".
 *
 * Whole addresses over several lines stay one span.
 */
export function alignAddressSpans(tokens: readonly Token[], hits: readonly GazetteerHit[][], spans: readonly TokenSpan[]): TokenSpan[] {
  const isStreet = (i: number) => inList(hits[i], 'street');
  const isUnit = (i: number) => inList(hits[i], 'unit');
  const text = (i: number) => tokens[i]?.text ?? '';
  const out: TokenSpan[] = [];
  for (const span of mergeCorners(tokens, spans)) {
    if (span.type !== 'LOCATION') {
      out.push(span);
      continue;
    }
    let { from, to } = span;
    // A trailing street word after a complete street.
    const last = to - 1;
    if (to - from >= 3 && isStreet(last)) {
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
      const endsAsStreet = DIGITS.test(text(to - 1)) || isStreet(to - 1);
      if (oneLine && number && word && !unit && endsAsStreet) {
        out.push({ ...span, from, to: from + 1 });
        from += 1;
      }
    }
    out.push({ ...span, from, to });
  }
  return out;
}

/** "[the] corner of <LOCATION> and <LOCATION or ORGANIZATION>" → one LOCATION from "the" (or "corner"). */
function mergeCorners(tokens: readonly Token[], spans: readonly TokenSpan[]): TokenSpan[] {
  const out: TokenSpan[] = [];
  const lower = (i: number) => tokens[i]?.text.toLowerCase() ?? '';
  for (let k = 0; k < spans.length; k++) {
    const a = spans[k]!;
    const b = spans[k + 1];
    const corner = a.type === 'LOCATION' && lower(a.from - 1) === 'of' && lower(a.from - 2) === 'corner';
    if (corner && b && (b.type === 'LOCATION' || b.type === 'ORGANIZATION') && b.from === a.to + 1 && lower(a.to) === 'and') {
      const from = lower(a.from - 3) === 'the' ? a.from - 3 : a.from - 2;
      out.push({ type: 'LOCATION', from, to: b.to, score: Math.min(a.score, b.score) });
      k++;
      continue;
    }
    out.push(a);
  }
  return out;
}
