import type { ChatCallMessage } from '@docflow/llm-client';
import { splitSentences } from './chunker';

/** A retrieved passage as the answer sees it; `n` is its citation number ([n]). */
export interface ContextPassage {
  n: number;
  documentTitle: string;
  page: number | null;
  content: string;
}

/** Characters of context sent to the model at most (the passages are cut to fit, best first). */
export const MAX_CONTEXT_CHARS = 24000;

export const SYSTEM_PROMPT = [
  "You answer questions about the user's documents using only the numbered context passages below the question.",
  'Cite the passages that support each statement with their numbers in square brackets, like [1] or [2][3].',
  'If the passages do not contain the answer, say that the documents do not answer the question. Never invent facts, names or numbers.',
  'Answer in the language of the question, concisely.',
].join(' ');

/** The chat messages that ask for a grounded answer with citations. */
export function groundedMessages(question: string, passages: ContextPassage[]): ChatCallMessage[] {
  let budget = MAX_CONTEXT_CHARS;
  const blocks: string[] = [];
  for (const p of passages) {
    if (budget <= 200) break;
    const where = p.page !== null ? `${p.documentTitle}, page ${p.page}` : p.documentTitle;
    const text = p.content.length > budget ? `${p.content.slice(0, budget)}…` : p.content;
    budget -= text.length;
    blocks.push(`[${p.n}] (${where})\n${text}`);
  }
  return [
    { role: 'system', content: SYSTEM_PROMPT },
    { role: 'user', content: `Question: ${question}\n\nContext passages:\n\n${blocks.join('\n\n')}` },
  ];
}

const STOP_WORDS = new Set(
  (
    'a about above after again against all also am an and any are as at be because been before being below between both but by can could did do does ' +
    'doing down during each few for from further had has have having he her here hers him his how i if in into is it its itself just me more most my no ' +
    'nor not now of off on once only or other our ours out over own same she should so some such than that the their theirs them then there these they ' +
    'this those through to too under until up upon very was we were what when where which while who whom why will with would you your yours shall may must ' +
    'per via within without tell please give many much'
  ).split(' '),
);

/** A crude English stem, enough to match "allowances" with "allowance" and "travelling" with "travel". */
function stem(word: string): string {
  for (const suffix of ['ations', 'ation', 'ings', 'ing', 'ies', 'ied', 'es', 'ed', 'ly', 's']) {
    if (word.length > suffix.length + 3 && word.endsWith(suffix)) return suffix === 'ies' || suffix === 'ied' ? `${word.slice(0, -3)}y` : word.slice(0, -suffix.length);
  }
  return word;
}

export function contentTerms(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => !STOP_WORDS.has(w) && (w.length > 1 || /\d/.test(w))).map(stem);
}

/** Most sentences an extractive answer quotes. */
const MAX_SENTENCES = 3;

/**
 * The answer without a language model: the sentences of the passages that
 * share the most (and rarest) words with the question, each followed by the
 * citation of its passage. Deterministic; it never writes anything that is
 * not in the passages.
 */
export function extractiveAnswer(question: string, passages: ContextPassage[]): string {
  const wanted = new Set(contentTerms(question));
  if (wanted.size === 0 || passages.length === 0) return 'The indexed documents do not answer this question.';
  const candidates = passages.flatMap((p, passageOrder) =>
    p.content
      .split(/\n+/)
      .flatMap((line) => splitSentences(line))
      .filter((s) => s.length >= 20 && /\s/.test(s))
      .map((text, position) => ({ text, n: p.n, passageOrder, position, terms: new Set(contentTerms(text)) })),
  );
  // Rarer words among the candidate sentences weigh more (inverse sentence frequency).
  const df = new Map<string, number>();
  for (const c of candidates) for (const t of c.terms) if (wanted.has(t)) df.set(t, (df.get(t) ?? 0) + 1);
  const weight = (t: string) => Math.log(1 + candidates.length / (df.get(t) ?? candidates.length));
  const scored = candidates
    .map((c) => ({ ...c, score: [...wanted].filter((t) => c.terms.has(t)).reduce((sum, t) => sum + weight(t), 0) }))
    .filter((c) => c.score > 0)
    .sort((a, b) => b.score - a.score || a.passageOrder - b.passageOrder || a.position - b.position);
  const best = scored[0];
  if (!best) return 'The indexed documents do not answer this question.';
  const seen = new Set<string>();
  const picked = scored.filter((c) => c.score >= best.score * 0.5 && !seen.has(c.text) && seen.add(c.text)).slice(0, MAX_SENTENCES);
  return picked.map((c) => `${c.text} [${c.n}]`).join(' ');
}

/** Citation numbers an answer uses, in order of first use, limited to those that exist. */
export function citations(answer: string, count: number): number[] {
  const out: number[] = [];
  for (const m of answer.matchAll(/\[(\d{1,3})\]/g)) {
    const n = Number(m[1]);
    if (n >= 1 && n <= count && !out.includes(n)) out.push(n);
  }
  return out;
}
