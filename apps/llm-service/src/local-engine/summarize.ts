import { contentTokens, countWords, splitSentences, termFrequencies } from './text';

export const SUMMARY_STYLES = ['brief', 'detailed', 'bullet_points'] as const;
export type SummaryStyle = (typeof SUMMARY_STYLES)[number];

export interface SummaryOptions {
  style: SummaryStyle;
  /** Upper bound on the summary's words (spec 2.7 `max_length`, default 500). */
  maxWords: number;
  /** "in 2 bullet points", "in 3 sentences": overrides the style's own cap. */
  maxSentences?: number;
}

export interface Summary {
  style: SummaryStyle;
  /** Sentences of the source text, in their original order. */
  sentences: string[];
  text: string;
  wordCount: number;
}

export const DEFAULT_SUMMARY_WORDS = 500;

const TERMINATED = /[.!?…]["')\]]?$/;

const NUMBER_WORDS: Record<string, number> = { one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10 };

/** Headings (short, no closing punctuation, or all capitals) carry no statement to summarise. */
function isHeading(text: string): boolean {
  const letters = text.replace(/[^\p{L}]/gu, '');
  if (letters.length > 3 && letters === letters.toUpperCase()) return true;
  return countWords(text) < 4 && !/[.!?]$/.test(text);
}

/** Reads the style and the word limit from a summarisation prompt. */
export function summaryOptionsFrom(instructions: string): SummaryOptions {
  const lower = instructions.toLowerCase();
  let style: SummaryStyle = 'brief';
  if (/bullet|key points|\bpoints\b|bullet_points/.test(lower)) style = 'bullet_points';
  else if (/\bdetailed\b|comprehensive|in depth|in-depth|thorough/.test(lower)) style = 'detailed';
  const limit = /max(?:imum)?[_ ]?(?:length|words)\D{0,5}(\d{1,5})/i.exec(instructions) ?? /(\d{1,5})\s*words?\b/i.exec(instructions);
  const maxWords = limit?.[1] ? Math.max(1, Number(limit[1])) : DEFAULT_SUMMARY_WORDS;
  const count = /\b(\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten)\s+(?:short\s+|key\s+|main\s+)?(?:bullet points|bullets|points|sentences|lines)\b/i.exec(instructions);
  const maxSentences = count?.[1] ? (NUMBER_WORDS[count[1].toLowerCase()] ?? Number(count[1])) : undefined;
  return { style, maxWords, ...(maxSentences ? { maxSentences } : {}) };
}

function sentenceCap(style: SummaryStyle, total: number): number {
  switch (style) {
    case 'brief':
      return 3;
    case 'bullet_points':
      return 6;
    case 'detailed':
      return Math.max(5, Math.ceil(total * 0.4));
    default: {
      const unreachable: never = style;
      throw new Error(`unknown style ${String(unreachable)}`);
    }
  }
}

/**
 * Extractive summary: sentences are scored by the average normalised
 * frequency of their content words, with a bonus for early position, and the
 * best ones are returned in document order within the word limit.
 */
export function summarize(text: string, options: SummaryOptions): Summary {
  const sentences = splitSentences(text);
  if (sentences.length === 0) return { style: options.style, sentences: [], text: '', wordCount: 0 };
  const freq = termFrequencies(contentTokens(text));
  const maxFreq = Math.max(1, ...freq.values());
  const scored = sentences.map((s) => {
    const tokens = contentTokens(s.text);
    const avg = tokens.length ? tokens.reduce((sum, t) => sum + (freq.get(t) ?? 0) / maxFreq, 0) / tokens.length : 0;
    // Short sentences and fragments without closing punctuation (signature lines, captions) weigh less.
    const lengthFactor = Math.min(1, tokens.length / 6) * (TERMINATED.test(s.text) ? 1 : 0.6);
    const position = 0.15 * (1 - s.index / sentences.length) + (s.index === 0 ? 0.1 : 0);
    return { ...s, score: avg * lengthFactor + position, words: countWords(s.text) };
  });
  const statements = scored.filter((s) => !isHeading(s.text));
  const ranked = [...(statements.length ? statements : scored)].sort((a, b) => b.score - a.score || a.index - b.index);
  const cap = options.maxSentences ?? sentenceCap(options.style, sentences.length);
  const picked: typeof scored = [];
  let used = 0;
  const seen = new Set<string>();
  for (const s of ranked) {
    if (picked.length >= cap) break;
    const key = s.text.toLowerCase();
    if (seen.has(key)) continue;
    if (used + s.words > options.maxWords) continue;
    picked.push(s);
    seen.add(key);
    used += s.words;
  }
  let chosen = picked.sort((a, b) => a.index - b.index).map((s) => s.text);
  if (chosen.length === 0) {
    // Even the best sentence is longer than the limit: keep its first words.
    const best = ranked[0];
    chosen = best ? [`${best.text.split(/\s+/).slice(0, options.maxWords).join(' ')}…`] : [];
  }
  // In prose, a sentence without closing punctuation (a `label: value` line) gets a full stop, so it never runs into the next one.
  const out = options.style === 'bullet_points' ? chosen.map((s) => `- ${s}`).join('\n') : chosen.map((s, i) => (i < chosen.length - 1 && !TERMINATED.test(s) ? `${s}.` : s)).join(' ');
  return { style: options.style, sentences: chosen, text: out, wordCount: chosen.reduce((n, s) => n + countWords(s), 0) };
}
