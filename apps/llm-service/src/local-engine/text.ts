/** Tokenising, stemming and sentence splitting shared by the local engine's capabilities. */

export const STOPWORDS = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being below between both but by can could did do does ' +
    'doing down during each few for from further had has have having he her here hers herself him himself his how i if in into is it its itself ' +
    'just me more most my myself no nor not now of off on once only or other our ours ourselves out over own same she should so some such than ' +
    'that the their theirs them themselves then there these they this those through to too under until up very was we were what when where which ' +
    'while who whom why will with would you your yours yourself yourselves also may might must shall upon via per etc us'
  ).split(' '),
);

/** A light suffix stemmer: enough for token overlap between a label and a text, not a linguistic tool. */
export function stem(word: string): string {
  let w = word;
  if (w.length > 4 && w.endsWith('ies')) w = `${w.slice(0, -3)}y`;
  else if (w.length > 4 && /(ches|shes|sses|xes|zes)$/.test(w)) w = w.slice(0, -2);
  else if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us') && !w.endsWith('is')) w = w.slice(0, -1);
  if (w.length > 6 && w.endsWith('ing')) w = w.slice(0, -3);
  else if (w.length > 5 && w.endsWith('ed')) w = w.slice(0, -2);
  if (w.length > 7 && w.endsWith('ation')) w = w.slice(0, -5);
  return w;
}

/** Lower-case word tokens (letters and digits), without stemming. */
export function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu) ?? [];
}

/** Content tokens: lower case, stop words and one-letter tokens removed, stemmed. */
export function contentTokens(text: string): string[] {
  return words(text)
    .filter((w) => w.length > 1 && !STOPWORDS.has(w))
    .map(stem);
}

export function countWords(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

export function termFrequencies(tokens: string[]): Map<string, number> {
  const tf = new Map<string, number>();
  for (const t of tokens) tf.set(t, (tf.get(t) ?? 0) + 1);
  return tf;
}

export interface Sentence {
  text: string;
  index: number;
}

const ABBREVIATIONS = /\b(?:mr|mrs|ms|dr|prof|inc|ltd|co|corp|no|vs|etc|e\.g|i\.e|approx|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec|st|ave)\.$/i;

const LIST_ITEM = /^([-*•]|\d+[.)])\s+/;

/**
 * Whether a line runs on into the next: only prose (not a list item, a
 * `label: value` line or a short line) that stops without closing
 * punctuation, followed by a line that starts in lower case, as a wrapped
 * sentence does. Headings and `label: value` lines always end a sentence.
 */
function runsOn(line: string, next: string | undefined): boolean {
  if (next === undefined || LIST_ITEM.test(line) || LIST_ITEM.test(next)) return false;
  if (line.length < 40 || /:\s*\S/.test(line.slice(0, 40)) || /[.!?:;]["')\]]?$/.test(line)) return false;
  return /^\p{Ll}/u.test(next);
}

/**
 * Splits text into sentences: on . ! ? followed by white space, at blank
 * lines, and at every line break except inside a wrapped sentence (see
 * runsOn): a heading or a `label: value` line is a sentence of its own.
 */
export function splitSentences(text: string): Sentence[] {
  const out: string[] = [];
  for (const block of text.replace(/\r\n?/g, '\n').split(/\n\s*\n/)) {
    const lines = block
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    let current = '';
    lines.forEach((line, i) => {
      const own = line.replace(LIST_ITEM, '');
      current = current ? `${current} ${own}` : own;
      if (!runsOn(line, lines[i + 1])) {
        out.push(current);
        current = '';
      }
    });
    if (current) out.push(current);
  }
  const sentences: string[] = [];
  for (const chunk of out) {
    let start = 0;
    const re = /[.!?]+["')\]]?(?=\s+["'(\[]?[\p{Lu}\p{N}])/gu;
    let m: RegExpExecArray | null;
    while ((m = re.exec(chunk)) !== null) {
      const end = m.index + m[0].length;
      const candidate = chunk.slice(start, end).trim();
      if (ABBREVIATIONS.test(candidate) || /\b\p{Lu}\.$/u.test(candidate)) continue;
      if (candidate) sentences.push(candidate);
      start = end;
    }
    const rest = chunk.slice(start).trim();
    if (rest) sentences.push(rest);
  }
  return sentences.map((s, index) => ({ text: s, index }));
}

/** Sparse vector operations over token weights. */
export function cosine(a: Map<string, number>, b: Map<string, number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (const [k, v] of a) {
    na += v * v;
    const w = b.get(k);
    if (w !== undefined) dot += v * w;
  }
  for (const v of b.values()) nb += v * v;
  if (na === 0 || nb === 0) return 0;
  return dot / Math.sqrt(na * nb);
}

export function round(value: number, digits = 4): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
