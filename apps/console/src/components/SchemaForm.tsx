import { useState } from 'react';
import { fromText, type JsonSchema, type Kind, kindOf, primary, toText } from '../lib/schema-fields';

export type { JsonSchema } from '../lib/schema-fields';
export { schemaDefaults } from '../lib/schema-fields';

const LONG_TEXT = new Set(['body', 'prompt_text', 'description', 'text_input', 'query']);

interface Props {
  schema: JsonSchema | undefined;
  value: Record<string, unknown>;
  onChange: (v: Record<string, unknown>) => void;
  /** Makes ids unique when several forms share a page. */
  idPrefix: string;
  /** The fieldset's caption. */
  legend?: string;
}

/** A form generated from a JSON schema's properties, each field labelled and described for screen readers. */
export function SchemaForm({ schema, value, onChange, idPrefix, legend }: Props) {
  const props = Object.entries(schema?.properties ?? {});
  const required = new Set(schema?.required ?? []);
  const [raw, setRaw] = useState<Record<string, string | boolean>>(() => Object.fromEntries(props.map(([name, s]) => [name, toText(kindOf(s), value[name])])));
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
