/**
 * Context words (spec 4.17 rule 4: "regex plus optional context words"):
 * words near a match raise its score (a nine-digit number next to
 * "passport") or lower it (next to "order"). The window is the few words
 * before and after the match, compared in lower case.
 */
export interface ContextRule {
  /** Words or short phrases that make the match more likely. */
  words?: readonly string[];
  /** Words that make it less likely. */
  negative?: readonly string[];
  /** Added per rule when a positive word is near (default 0.35). */
  boost?: number;
  /** Subtracted when a negative word is near (default 0.3). */
  penalty?: number;
}

export const CONTEXT_WORDS_BEFORE = 6;
export const CONTEXT_WORDS_AFTER = 3;
const WINDOW_CHARS = 80;
const WORD = /[\p{L}\p{N}]+/gu;

function wordsIn(text: string): string[] {
  return text.toLowerCase().match(WORD) ?? [];
}

/** Lower-cased words around [start, end). */
export function contextWindow(text: string, start: number, end: number): { before: string[]; after: string[] } {
  const before = wordsIn(text.slice(Math.max(0, start - WINDOW_CHARS), start));
  const after = wordsIn(text.slice(end, Math.min(text.length, end + WINDOW_CHARS / 2)));
  return { before: before.slice(-CONTEXT_WORDS_BEFORE), after: after.slice(0, CONTEXT_WORDS_AFTER) };
}

export interface CompiledContext {
  /** Each phrase as its words; a phrase is near when all its words are in the window. */
  positive: string[][];
  negative: string[][];
  boost: number;
  penalty: number;
}

export function compileContext(rule: ContextRule | undefined): CompiledContext | undefined {
  if (!rule || (!rule.words?.length && !rule.negative?.length)) return undefined;
  const phrases = (list: readonly string[] | undefined) => (list ?? []).map(wordsIn).filter((p) => p.length > 0);
  return { positive: phrases(rule.words), negative: phrases(rule.negative), boost: rule.boost ?? 0.35, penalty: rule.penalty ?? 0.3 };
}

function near(window: ReadonlySet<string>, phrases: string[][]): boolean {
  return phrases.some((p) => p.every((w) => window.has(w) || window.has(`${w}s`) || window.has(`${w}es`)));
}

/** The score after context: base + boost when a positive phrase is near, − penalty when a negative one is, within [0, 1]. */
export function scoreWithContext(base: number, context: CompiledContext | undefined, text: string, start: number, end: number): number {
  if (!context) return base;
  const { before, after } = contextWindow(text, start, end);
  const window = new Set([...before, ...after]);
  let score = base;
  if (context.positive.length && near(window, context.positive)) score += context.boost;
  if (context.negative.length && near(window, context.negative)) score -= context.penalty;
  return Math.max(0, Math.min(1, score));
}
