import { jsonArrayFrom } from './json-scan';
import { contentTokens, cosine, round, termFrequencies } from './text';

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
  const description = DESCRIPTION_KEYS.map((k) => textOf(obj[k])).filter(Boolean).join(' ');
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
  const bullets = lines.map((l) => BULLET.exec(l)).filter((m): m is RegExpExecArray => m !== null).map((m) => candidateFromLine(String(m[1])));
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

/**
 * TF-IDF cosine between the text and each candidate (label words count twice,
 * IDF over the candidates). Confidence = the best score's share of all scores,
 * damped when even the best overlap is weak: share * (1 - e^(-6 * best)).
 */
export function classify(text: string, candidates: Candidate[]): Classification {
  const docs = candidates.map((c) => {
    const labelTokens = contentTokens(`${c.label.replace(/[_-]+/g, ' ')} ${c.section ?? ''}`);
    return termFrequencies([...labelTokens, ...labelTokens, ...contentTokens(c.description ?? '')]);
  });
  const df = new Map<string, number>();
  for (const d of docs) for (const t of d.keys()) df.set(t, (df.get(t) ?? 0) + 1);
  const idf = (t: string) => Math.log((1 + docs.length) / (1 + (df.get(t) ?? 0))) + 1;
  const weigh = (tf: Map<string, number>) => new Map([...tf].map(([t, n]) => [t, Math.log(1 + n) * idf(t)]));
  const textTf = termFrequencies(contentTokens(text).filter((t) => df.has(t)));
  const textVec = weigh(textTf);
  const sims = docs.map((d) => cosine(textVec, weigh(d)));
  const scores = candidates.map((c, i) => ({ label: c.label, score: round(sims[i] ?? 0) }));
  let best = -1;
  sims.forEach((s, i) => {
    if (s > 0 && (best < 0 || s > (sims[best] ?? 0))) best = i;
  });
  const total = sims.reduce((a, b) => a + b, 0);
  const winner = best >= 0 ? candidates[best] : undefined;
  if (!winner || total === 0) return { label: null, section: null, confidence: 0, scores };
  const top = sims[best] ?? 0;
  const confidence = round((top / total) * (1 - Math.exp(-6 * top)));
  return { label: winner.label, section: winner.section ?? null, confidence: Math.min(1, Math.max(0, confidence)), scores };
}
