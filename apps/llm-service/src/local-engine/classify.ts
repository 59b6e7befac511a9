import { jsonArrayFrom } from './json-scan';
import { contentTokens, cosine, round, stem, termFrequencies } from './text';

export interface Candidate {
  label: string;
  section?: string;
  description?: string;
}

export interface Classification {
  /** Null when no candidate shares a word with the text. */
  label: string | null;
  section: string | null;
  confidence: number;
  scores: { label: string; score: number }[];
}

const LABEL_KEYS = ['title', 'prompt_title', 'label', 'name', 'type', 'category', 'document_type', 'class'];
const DESCRIPTION_KEYS = ['description', 'keywords', 'examples', 'tasks', 'instructions'];

function textOf(value: unknown): string | undefined {
  if (typeof value === 'string' && value.trim()) return value.trim();
  if (Array.isArray(value)) {
    const parts = value.filter((v): v is string => typeof v === 'string');
    return parts.length ? parts.join(' ') : undefined;
  }
  return undefined;
}

function candidateFromObject(obj: Record<string, unknown>): Candidate | undefined {
  const key = LABEL_KEYS.find((k) => textOf(obj[k]) !== undefined);
  const label = key ? textOf(obj[key]) : undefined;
  if (!label) return undefined;
  const description = DESCRIPTION_KEYS.map((k) => textOf(obj[k]))
    .filter(Boolean)
    .join(' ');
  const section = textOf(obj.section);
  return { label, ...(section ? { section } : {}), ...(description ? { description } : {}) };
}

/** `title: X | section: Y | description: Z` or `Label: description` or `Label - description`. */
function candidateFromLine(line: string): Candidate | undefined {
  const fields = Object.fromEntries(
    line
      .split(/\s*[|;]\s*/)
      .map((part) => /^([A-Za-z_ ]{2,20}):\s*(.+)$/.exec(part))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => [String(m[1]).trim().toLowerCase().replace(/\s+/g, '_'), String(m[2]).trim()]),
  );
  const fromFields = candidateFromObject(fields);
  if (fromFields && Object.keys(fields).some((k) => LABEL_KEYS.includes(k))) return fromFields;
  const m = /^(.{1,80}?)(?:\s*[:–—]\s+|\s+-\s+|\s*\(\s*)(.*?)\)?$/.exec(line);
  if (m?.[1] && m[2]) return { label: m[1].trim(), description: m[2].trim() };
  const label = line.trim().replace(/[.;,]$/, '');
  return label ? { label } : undefined;
}

const LIST_HEADER = /(categor|label|type|class|option|candidate|prompt|choice|topic|sentiment)/i;
const BULLET = /^\s*(?:[-*•]|\d+[.)]|[a-z][.)])\s+(.+)$/;

/**
 * The labels a classification prompt offers: a JSON array (of strings or of
 * objects with title/label/name and optional section and description), an
 * inline list (`one of: a, b, c`), or a bulleted list after a header that
 * mentions categories, labels, types, options or prompts.
 */
export function parseCandidates(instructions: string): Candidate[] {
  const array = jsonArrayFrom(instructions);
  if (array) {
    const fromJson = array
      .map((item) => (typeof item === 'string' ? { label: item.trim() } : item && typeof item === 'object' ? candidateFromObject(item as Record<string, unknown>) : undefined))
      .filter((c): c is Candidate => c !== undefined && c.label.length > 0);
    if (fromJson.length) return dedupe(fromJson);
  }
  const lines = instructions.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const header = LIST_HEADER.test(line) && /:\s*$/.test(line);
    if (header) {
      const items: Candidate[] = [];
      for (let j = i + 1; j < lines.length; j++) {
        const l = lines[j] ?? '';
        const bullet = BULLET.exec(l);
        if (!bullet) {
          if (!l.trim() && items.length === 0) continue;
          break;
        }
        const c = candidateFromLine(String(bullet[1]));
        if (c) items.push(c);
      }
      if (items.length) return dedupe(items);
    }
    const inline = /(?:one of|categories|labels|types|options|classes|candidates|choices|topics)\b[^:\n]{0,40}:\s*(.+)$/i.exec(line);
    if (inline?.[1] && /[,|/]|\bor\b/.test(inline[1])) {
      const items = inline[1]
        .replace(/\.$/, '')
        .split(/\s*(?:,|\||\/|\bor\b)\s*/)
        .map((s) => s.replace(/^["'`\s]+|["'`\s]+$/g, '').replace(/^and\s+/i, ''))
        .filter((s) => s.length > 0 && s.length <= 80)
        .map((label) => ({ label }));
      if (items.length >= 2) return dedupe(items);
    }
  }
  const bullets = lines
    .map((l) => BULLET.exec(l))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => candidateFromLine(String(m[1])));
  return dedupe(bullets.filter((c): c is Candidate => c !== undefined));
}

function dedupe(items: Candidate[]): Candidate[] {
  const seen = new Set<string>();
  return items.filter((c) => {
    const key = c.label.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Words that name a task or are generic, not what a document is about: a prompt titled "Invoice data extraction" is about invoices. */
const TASK_WORDS = new Set(
  (
    'extract extraction extracts extracting summary summaries summarise summarize summarises summarizes classification classify classifies review reviews analysis ' +
    'analyse analyze analyses data fact facts field fields information info detail details prompt prompts template templates processing parse parses find finds pull pulls ' +
    'document documents doc type types general generic category categories feature features decided'
  )
    .split(' ')
    .map(stem),
);

/** Label evidence from a label word: 1 in the heading zone, else growing with how often the text uses it. */
const MENTION_EVIDENCE = [0, 0.3, 0.45, 0.6] as const;
/** Covering this many description terms is full description evidence (descriptions are keyword lists of any length). */
const DESCRIPTION_SATURATION = 4;
/** Label and description evidence each alone reach this much confidence. */
const EVIDENCE_WEIGHT = 0.65;
/** Covering all of a long description adds up to this much more. */
const COVERAGE_WEIGHT = 0.3;
/** Candidates this close to the best are a near-tie, broken by TF-IDF cosine, then by candidate order. */
export const NEAR_TIE = 0.02;

interface TextProfile {
  tf: Map<string, number>;
  heading: Set<string>;
}

function profile(text: string): TextProfile {
  const lines = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
  // The heading zone: the first sentence (at most 80 characters) of each of the first two lines, where a title or a document's own heading stands.
  const heading = new Set(lines.slice(0, 2).flatMap((l) => contentTokens((/^.*?[.!?](?=\s|$)/.exec(l)?.[0] ?? l).slice(0, 80))));
  return { tf: termFrequencies(contentTokens(text)), heading };
}

function subjectTerms(text: string): string[] {
  return [...new Set(contentTokens(text.replace(/[_-]+/g, ' ')).filter((t) => !TASK_WORDS.has(t)))];
}

/**
 * How similar the text is to one candidate, in [0, 1] and independent of the
 * other candidates: label evidence `a` (the label's subject words in the
 * text: in its first two lines counts fully, a mention in the body less) and
 * description evidence `b` (the share of the section and description terms
 * the text holds, full at DESCRIPTION_SATURATION terms) and coverage `c`
 * (the share of all those terms), combined as 1 - (1 - w·a)(1 - w·b)(1 - v·c).
 * Label evidence alone stays below 0.7, and so does a description without
 * the label's words unless the text holds nearly all of it: a prompt matches
 * when the text names what the prompt is for and shares its vocabulary.
 */
export function similarity(text: TextProfile, candidate: Candidate): number {
  const label = subjectTerms(candidate.label);
  const labelSet = new Set(label);
  const described = subjectTerms(`${candidate.section ?? ''} ${candidate.description ?? ''}`).filter((t) => !labelSet.has(t));
  const mention = (t: string): number => (text.heading.has(t) ? 1 : (MENTION_EVIDENCE[Math.min(3, text.tf.get(t) ?? 0)] ?? 0));
  const evidence = label.map(mention);
  const a = evidence.length ? 0.5 * Math.max(...evidence) + 0.5 * (evidence.reduce((x, y) => x + y, 0) / evidence.length) : 0;
  const found = described.filter((t) => (text.tf.get(t) ?? 0) > 0).length;
  const b = described.length ? Math.min(1, found / Math.min(described.length, DESCRIPTION_SATURATION)) : 0;
  const c = described.length ? found / described.length : 0;
  return 1 - (1 - EVIDENCE_WEIGHT * a) * (1 - EVIDENCE_WEIGHT * b) * (1 - COVERAGE_WEIGHT * c);
}

/** TF-IDF cosine between the text and each candidate (label words count twice, IDF over the candidates): the near-tie breaker. */
function cosines(text: string, candidates: Candidate[]): number[] {
  const docs = candidates.map((c) => {
    const labelTokens = contentTokens(`${c.label.replace(/[_-]+/g, ' ')} ${c.section ?? ''}`);
    return termFrequencies([...labelTokens, ...labelTokens, ...contentTokens(c.description ?? '')]);
  });
  const df = new Map<string, number>();
  for (const d of docs) for (const t of d.keys()) df.set(t, (df.get(t) ?? 0) + 1);
  const idf = (t: string) => Math.log((1 + docs.length) / (1 + (df.get(t) ?? 0))) + 1;
  const weigh = (tf: Map<string, number>) => new Map([...tf].map(([t, n]) => [t, Math.log(1 + n) * idf(t)]));
  const textVec = weigh(termFrequencies(contentTokens(text).filter((t) => df.has(t))));
  return docs.map((d) => cosine(textVec, weigh(d)));
}

/**
 * Picks the candidate most similar to the text. The confidence is that
 * candidate's own similarity (see `similarity`), not its share among the
 * candidates: a second candidate for the same kind of text does not lower
 * it, and a text unlike every candidate scores low whatever it is offered.
 * Near-ties (within NEAR_TIE) go to the higher TF-IDF cosine, then to the
 * earlier candidate. Deterministic.
 */
export function classify(text: string, candidates: Candidate[]): Classification {
  const p = profile(text);
  const sims = candidates.map((c) => similarity(p, c));
  const scores = candidates.map((c, i) => ({ label: c.label, score: round(sims[i] ?? 0) }));
  const top = Math.max(0, ...sims);
  if (top <= 0) return { label: null, section: null, confidence: 0, scores };
  const near = sims.map((s, i) => ({ s, i })).filter(({ s }) => s > 0 && top - s <= NEAR_TIE);
  let best = near[0]?.i ?? 0;
  if (near.length > 1) {
    const cos = cosines(text, candidates);
    for (const { i } of near) if ((cos[i] ?? 0) > (cos[best] ?? 0)) best = i;
  }
  const winner = candidates[best];
  if (!winner) return { label: null, section: null, confidence: 0, scores };
  return { label: winner.label, section: winner.section ?? null, confidence: round(Math.min(1, sims[best] ?? 0)), scores };
}
