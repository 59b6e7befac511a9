import type { NerSpan } from './types';

const SPACE = /\s+/u;

/**
 * One name, one type within a text: a single word tagged ORGANIZATION or
 * LOCATION that is also a word of a longer PERSON span in the same text is
 * that person named again ("... sung by Adam McDowell in 1975. McDowell was
 * influenced by ..."): the tagger decides each sentence alone and at times
 * takes a surname on its own for a firm. Longer spans and lower-case words
 * are left as they are.
 */
export function consistentNames(text: string, spans: readonly NerSpan[]): NerSpan[] {
  const personWords = new Set<string>();
  for (const span of spans) {
    if (span.type !== 'PERSON') continue;
    const words = text.slice(span.start, span.end).split(SPACE);
    if (words.length > 1) for (const w of words) if (w.length > 2 && w[0] !== w[0]!.toLowerCase()) personWords.add(w);
  }
  if (!personWords.size) return [...spans];
  return spans.map((span) => {
    if (span.type !== 'ORGANIZATION' && span.type !== 'LOCATION') return span;
    const word = text.slice(span.start, span.end);
    return !SPACE.test(word) && personWords.has(word) ? { ...span, type: 'PERSON' } : span;
  });
}
