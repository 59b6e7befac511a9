import { isPlainObject } from '@docflow/service-kit';
/**
 * The JSON object of an LLM answer: the parsed content itself, or the first
 * object inside a text answer (bare or in a ```json fence). Undefined when
 * there is none.
 */
export function answerObject(content: unknown): Record<string, unknown> | undefined {
  if (isPlainObject(content)) return content;
  if (typeof content !== 'string') return undefined;
  const fenced = /```(?:json)?\s*\n([\s\S]*?)```/i.exec(content);
  for (const candidate of [fenced?.[1], content]) {
    if (candidate === undefined) continue;
    const start = candidate.indexOf('{');
    const end = candidate.lastIndexOf('}');
    if (start < 0 || end <= start) continue;
    try {
      const parsed = JSON.parse(candidate.slice(start, end + 1)) as unknown;
      if (isPlainObject(parsed)) return parsed;
    } catch {
      // not JSON: try the next candidate
    }
  }
  return undefined;
}

export function stringField(obj: Record<string, unknown> | undefined, ...keys: string[]): string | null {
  for (const key of keys) {
    const v = obj?.[key];
    if (typeof v === 'string' && v.trim()) return v.trim();
  }
  return null;
}

/** A confidence in [0, 1]: numbers and numeric strings, percentages (> 1) scaled down. */
export function confidenceField(obj: Record<string, unknown> | undefined, ...keys: string[]): number | null {
  for (const key of keys) {
    const raw = obj?.[key];
    const v = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw.replace('%', '')) : NaN;
    if (!Number.isFinite(v) || v < 0) continue;
    const scaled = v > 1 ? v / 100 : v;
    return Math.min(1, Math.round(scaled * 10000) / 10000);
  }
  return null;
}

export function stringList(obj: Record<string, unknown> | undefined, key: string): string[] | null {
  const v = obj?.[key];
  if (!Array.isArray(v)) return null;
  const items = v.filter((x): x is string => typeof x === 'string' && x.trim().length > 0).map((x) => x.trim());
  return items.length ? items : null;
}
