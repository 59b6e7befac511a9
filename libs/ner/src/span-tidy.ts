import type { TokenSpan } from './address-spans';
import type { Token } from './tokenizer';

const WORDLIKE = /[\p{L}\p{N}]/u;
/** Possessive determiners: "Her Allianz account", "His Northwind resignation letter" name the firm, not "Her Northwind". */
const POSSESSIVE = /^(?:my|your|his|her|its|our|their)$/i;
/** A seat, a flat, a gate: digits and one letter ("11A", "4304A") are no firm. */
const SEAT = /^\d+\p{L}$/u;

/**
 * Clean-up of decoded spans that no label sequence can get wrong on purpose:
 *
 * - punctuation and line breaks at a span's edges are no part of the name
 *   ("- Jacobs VZW" in a bulleted list, "Tory)" before a closing parenthesis,
 *   an address taken from the line break before it); a dot stays (an
 *   abbreviation's, a house number's), and so does a closing parenthesis
 *   whose opening one is inside the span ("Cyprus (Greek)");
 * - two PERSON spans one space apart are one name: the tagger at times
 *   starts a second name at a surname ("Daniel | Faure"), and no text writes
 *   two people's names side by side without a comma or "and";
 * - a possessive determiner before a name is not part of it ("His
 *   Northwind Clinic resignation letter");
 * - an ORGANIZATION that is digits and one letter is a seat or a gate
 *   ("seat 11A").
 */
export function tidySpans(tokens: readonly Token[], spans: readonly TokenSpan[]): TokenSpan[] {
  const text = (i: number) => tokens[i]!.text;
  const loose = (i: number) => !WORDLIKE.test(text(i)) && text(i) !== '.';
  const out: TokenSpan[] = [];
  for (const span of spans) {
    let { from, to } = span;
    if (span.type === 'ORGANIZATION' && to - from === 1 && SEAT.test(text(from))) continue;
    while (from < to && (loose(from) || (POSSESSIVE.test(text(from)) && to - from > 1))) from++;
    while (to > from && loose(to - 1)) {
      if (text(to - 1) === ')' && opens(tokens, from, to - 1)) break;
      to--;
    }
    if (from === to) continue;
    const previous = out[out.length - 1];
    if (previous && previous.type === 'PERSON' && span.type === 'PERSON' && previous.to === from && tokens[from]!.start - tokens[from - 1]!.end === 1) {
      // Adjacent tokens one character apart: that character is a space or a tab (line breaks are tokens).
      out[out.length - 1] = { ...previous, to, score: Math.min(previous.score, span.score) };
      continue;
    }
    out.push(from === span.from && to === span.to ? span : { ...span, from, to });
  }
  return out;
}

function opens(tokens: readonly Token[], from: number, to: number): boolean {
  let depth = 0;
  for (let i = from; i < to; i++) {
    if (tokens[i]!.text === '(') depth++;
    else if (tokens[i]!.text === ')') depth--;
  }
  return depth > 0;
}
