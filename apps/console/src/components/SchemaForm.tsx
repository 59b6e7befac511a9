import { useState } from 'react';

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

type Kind = 'enum' | 'boolean' | 'number' | 'string' | 'list' | 'json';

/** The schema a field is edited as: a templatable field's non-template branch. */
function primary(s: JsonSchema): JsonSchema {
  if (s.type || s.enum || !s.anyOf) return s;
  const typed = s.anyOf.filter((a) => !(a.type === 'string' && a.pattern?.includes('\\{\\{')));
  return typed.length === 1 && typed[0] ? { ...typed[0], default: s.default, description: s.description } : s;
}

function kindOf(s: JsonSchema): Kind {
  const p = primary(s);
  if (p.enum) return 'enum';
  const t = Array.isArray(p.type) ? p.type.find((x) => x !== 'null') : p.type;
  if (t === 'boolean') return 'boolean';
  if (t === 'number' || t === 'integer') return 'number';
  if (t === 'string') return 'string';
  if (t === 'array' && (!p.items?.type || ['string', 'number'].includes(String(p.items.type)))) return 'list';
  return 'json';
}

const LONG_TEXT = new Set(['body', 'prompt_text', 'description', 'text_input', 'query']);

function toText(kind: Kind, v: unknown): string | boolean {
  if (kind === 'boolean') return v === true;
  if (v === undefined || v === null) return '';
  if (kind === 'list' && Array.isArray(v)) return v.join(', ');
  if (kind === 'json' && typeof v !== 'string') return JSON.stringify(v);
  return String(v);
}

/** Text back to a value; undefined leaves the field out. A `{{template}}` stays a string wherever the schema allows one. */
function fromText(kind: Kind, raw: string | boolean): unknown {
  if (kind === 'boolean') return raw === true;
  const text = String(raw).trim();
  if (text === '') return undefined;
  switch (kind) {
    case 'number':
      return Number.isFinite(Number(text)) ? Number(text) : text;
    case 'list':
      return /^\{\{[^{}]+\}\}$/.test(text) ? text : text.split(',').map((x) => x.trim()).filter(Boolean);
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

interface Props {
  schema: JsonSchema | undefined;
  value: Record<string, unknown>;
  onChange: (v: Record<string, unknown>) => void;
  /** Makes ids unique when several forms share a page. */
  idPrefix: string;
  /** Problems to show beside the form (from validation). */
  legend?: string;
}

/** A form generated from a JSON schema's properties, each field labelled and described for screen readers. */
export function SchemaForm({ schema, value, onChange, idPrefix, legend }: Props) {
  const props = Object.entries(schema?.properties ?? {});
  const required = new Set(schema?.required ?? []);
  const [raw, setRaw] = useState<Record<string, string | boolean>>(() =>
    Object.fromEntries(props.map(([name, s]) => [name, toText(kindOf(s), value[name])])),
  );
  const set = (name: string, kind: Kind, text: string | boolean) => {
    const nextRaw = { ...raw, [name]: text };
    setRaw(nextRaw);
    const next: Record<string, unknown> = { ...value };
    const parsed = fromText(kind, text);
    if (parsed === undefined) delete next[name];
    else next[name] = parsed;
    onChange(next);
  };
  if (props.length === 0) return <p className="muted">No fields to fill in.</p>;
  return (
    <fieldset className="schema-form">
      {legend ? <legend>{legend}</legend> : null}
      {props.map(([name, s]) => {
        const kind = kindOf(s);
        const id = `${idPrefix}-${name}`;
        const p = primary(s);
        const label = `${p.title ?? s.title ?? name}${required.has(name) ? ' (required)' : ''}`;
        const hint = [s.description, kind === 'list' ? 'comma-separated' : '', kind === 'json' ? 'a literal or JSON' : ''].filter(Boolean).join('; ');
        const describedBy = hint ? `${id}-hint` : undefined;
        const current = raw[name] ?? '';
        let input;
        if (kind === 'boolean') {
          input = <input id={id} type="checkbox" checked={current === true} onChange={(e) => set(name, kind, e.target.checked)} aria-describedby={describedBy} />;
        } else if (kind === 'enum') {
          input = (
            <select id={id} value={String(current)} onChange={(e) => set(name, kind, e.target.value)} required={required.has(name)} aria-describedby={describedBy}>
              <option value="">—</option>
              {(p.enum ?? []).map((o) => (
                <option key={String(o)} value={String(o)}>
                  {String(o)}
                </option>
              ))}
            </select>
          );
        } else if (LONG_TEXT.has(name)) {
          input = <textarea id={id} value={String(current)} rows={3} onChange={(e) => set(name, kind, e.target.value)} required={required.has(name)} aria-describedby={describedBy} />;
        } else {
          input = (
            <input
              id={id}
              type="text"
              inputMode={kind === 'number' ? 'decimal' : undefined}
              value={String(current)}
              onChange={(e) => set(name, kind, e.target.value)}
              required={required.has(name)}
              aria-describedby={describedBy}
            />
          );
        }
        return (
          <div className={`field field-${kind}`} key={name}>
            <label htmlFor={id}>{label}</label>
            {input}
            {hint ? (
              <small id={`${id}-hint`} className="muted">
                {hint}
              </small>
            ) : null}
          </div>
        );
      })}
    </fieldset>
  );
}
