const STOP_WORDS = new Set(
  (
    'a about above after again against all also am an and any are as at be because been before being below between both but by can could did do does doing down during each ' +
    'few for from further had has have having he her here hers him his how i if in into is it its itself just me more most my no nor not now of off on once only or other our ' +
    'ours out over own same she should so some such than that the their theirs them then there these they this those through to too under until up upon very was we were what ' +
    'when where which while who whom why will with would you your yours shall may must per via within without etc page pages document documents'
  ).split(' '),
);

const WORD = /[\p{L}\p{N}]+(?:['’.\-][\p{L}\p{N}]+|(?<=\p{N}),\p{N}{3}(?!\p{N}))*/gu;

/** Words as a reader counts them: bullet markers and lone punctuation are not words; a number with thousands separators (4,200) is one word. */
export function countWords(text: string): number {
  return text.match(WORD)?.length ?? 0;
}

/**
 * The text cut to at most `maxWords` words, keeping its line structure;
 * `truncated` says whether anything was cut.
 */
export function limitWords(text: string, maxWords: number): { text: string; truncated: boolean } {
  if (countWords(text) <= maxWords) return { text, truncated: false };
  let seen = 0;
  let end = 0;
  for (const m of text.matchAll(WORD)) {
    seen += 1;
    end = (m.index ?? 0) + m[0].length;
    if (seen >= maxWords) break;
  }
  return { text: `${text.slice(0, end).trimEnd()}…`, truncated: true };
}

/**
 * The most frequent content words of a text (stop words, numbers and words
 * under 3 letters left out), most frequent first, ties by first appearance.
 * Used as `key_features` when a model gives none: they are the text's own words.
 */
export function keyTerms(text: string, count = 5): string[] {
  const freq = new Map<string, { n: number; first: number }>();
  let i = 0;
  for (const m of text.toLowerCase().matchAll(/\p{L}[\p{L}'’-]*\p{L}/gu)) {
    const w = m[0].replace(/['’]s$/, '');
    i += 1;
    if (w.length < 3 || STOP_WORDS.has(w)) continue;
    const entry = freq.get(w);
    if (entry) entry.n += 1;
    else freq.set(w, { n: 1, first: i });
  }
  return [...freq.entries()]
    .sort((a, b) => b[1].n - a[1].n || a[1].first - b[1].first)
    .slice(0, count)
    .map(([w]) => w);
}
