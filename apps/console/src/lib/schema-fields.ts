/** How a JSON-Schema property is edited as a form field, and the text of a field read back as a value (pure; SchemaForm renders it). */

/** Enough of JSON Schema for the forms the API describes: task configs, input_schema, awaiting_input_schema. */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  enum?: unknown[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  default?: unknown;
  description?: string;
  title?: string;
  pattern?: string;
}

export type Kind = 'enum' | 'boolean' | 'number' | 'string' | 'list' | 'json';

/** The schema a field is edited as: a templatable field's non-template branch. */
export function primary(s: JsonSchema): JsonSchema {
  if (s.type || s.enum || !s.anyOf) return s;
  const typed = s.anyOf.filter((a) => !(a.type === 'string' && a.pattern?.includes('\\{\\{')));
  return typed.length === 1 && typed[0] ? { ...typed[0], default: s.default, description: s.description } : s;
}

export function kindOf(s: JsonSchema): Kind {
  const p = primary(s);
  if (p.enum) return 'enum';
  const t = Array.isArray(p.type) ? p.type.find((x) => x !== 'null') : p.type;
  if (t === 'boolean') return 'boolean';
  if (t === 'number' || t === 'integer') return 'number';
  if (t === 'string') return 'string';
  if (t === 'array' && (!p.items?.type || ['string', 'number'].includes(String(p.items.type)))) return 'list';
  return 'json';
}

export function toText(kind: Kind, v: unknown): string | boolean {
  if (kind === 'boolean') return v === true;
  if (v === undefined || v === null) return '';
  if (kind === 'list' && Array.isArray(v)) return v.join(', ');
  if (kind === 'json' && typeof v !== 'string') return JSON.stringify(v);
  return String(v);
}

/** Text back to a value; undefined leaves the field out. A `{{template}}` stays a string wherever the schema allows one. */
export function fromText(kind: Kind, raw: string | boolean): unknown {
  if (kind === 'boolean') return raw === true;
  const text = String(raw).trim();
  if (text === '') return undefined;
  switch (kind) {
    case 'number':
      return Number.isFinite(Number(text)) ? Number(text) : text;
    case 'list':
      return /^\{\{[^{}]+\}\}$/.test(text)
        ? text
        : text
            .split(',')
            .map((x) => x.trim())
            .filter(Boolean);
    case 'json':
      try {
        return JSON.parse(text);
      } catch {
        return text;
      }
    case 'enum':
    case 'string':
      return kind === 'string' ? String(raw) : text;
  }
}

export function schemaDefaults(schema: JsonSchema | undefined, value: Record<string, unknown> = {}): Record<string, unknown> {
  const out: Record<string, unknown> = { ...value };
  for (const [name, s] of Object.entries(schema?.properties ?? {})) if (out[name] === undefined && s.default !== undefined) out[name] = s.default;
  return out;
}
