/** Finding JSON values (and JSON-like shapes with placeholders) inside prose. */

export interface FoundJson {
  start: number;
  end: number;
  raw: string;
  /** The parsed value; undefined when the span is balanced but not valid JSON. */
  value: unknown;
}

/** The end (exclusive) of the balanced {...} or [...] starting at `start`, honouring strings; -1 when unbalanced. */
function balancedEnd(text: string, start: number): number {
  const stack: string[] = [];
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '{') stack.push('}');
    else if (c === '[') stack.push(']');
    else if (c === '}' || c === ']') {
      if (stack.pop() !== c) return -1;
      if (stack.length === 0) return i + 1;
    }
  }
  return -1;
}

/** Top-level balanced JSON-looking spans, in order of appearance. */
export function findJsonSpans(text: string): FoundJson[] {
  const found: FoundJson[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '{' || c === '[') {
      const end = balancedEnd(text, i);
      if (end > i) {
        const raw = text.slice(i, end);
        let value: unknown;
        try {
          value = JSON.parse(raw) as unknown;
        } catch {
          value = undefined;
        }
        // A bracketed word in prose ("[optional]") is not JSON: keep scanning inside it.
        if (value !== undefined || /^[{[]\s*["{[]/.test(raw)) {
          found.push({ start: i, end, raw, value });
          i = end;
          continue;
        }
      }
    }
    i++;
  }
  return found;
}

export type Shape = { [key: string]: Shape | null | ShapeLeaf };
/** A leaf records the example's value type so a filled value can follow it. */
export interface ShapeLeaf {
  leaf: 'string' | 'number' | 'boolean' | 'array' | 'unknown';
}

export function isLeaf(value: Shape | ShapeLeaf | null): value is ShapeLeaf {
  return value !== null && typeof (value as ShapeLeaf).leaf === 'string' && Object.keys(value).length === 1;
}

function shapeOfValue(value: unknown): Shape | ShapeLeaf {
  if (Array.isArray(value)) return { leaf: 'array' };
  if (value !== null && typeof value === 'object') {
    const out: Shape = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = shapeOfValue(v);
    return out;
  }
  if (typeof value === 'number') return { leaf: 'number' };
  if (typeof value === 'boolean') return { leaf: 'boolean' };
  if (typeof value === 'string') return { leaf: 'string' };
  return { leaf: 'unknown' };
}

/**
 * The shape of the first JSON object in the text: its keys (nested objects
 * kept) and the example value types. Placeholder examples that are not valid
 * JSON (`{"total": <number>}`) still give their quoted keys.
 */
export function jsonShapeFrom(text: string): Shape | undefined {
  for (const span of findJsonSpans(text)) {
    if (!span.raw.startsWith('{')) continue;
    if (span.value !== undefined) {
      const shape = shapeOfValue(span.value);
      if (!isLeaf(shape as Shape | ShapeLeaf) && Object.keys(shape).length) return shape as Shape;
      continue;
    }
    const keys = [...span.raw.matchAll(/"([^"\n]{1,60})"\s*:/g)].map((m) => m[1]).filter((k): k is string => Boolean(k));
    if (keys.length) return Object.fromEntries(keys.map((k) => [k, { leaf: 'unknown' } as ShapeLeaf]));
  }
  return undefined;
}

/** The first JSON array of the text whose items are strings or objects. */
export function jsonArrayFrom(text: string): unknown[] | undefined {
  for (const span of findJsonSpans(text)) {
    if (Array.isArray(span.value) && span.value.length) return span.value;
  }
  return undefined;
}
