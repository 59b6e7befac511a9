import { type FormEvent, type ReactNode, useState } from 'react';
import { ErrorMessage, PageHeader, Section } from '../components/ui';
import { api } from '../lib/api';
import { useAction } from '../lib/use-action';

interface Preview {
  tokenised_text: string;
  entities: { type: string; start: number; end: number; score: number; layer: string }[];
  entity_counts: Record<string, number>;
  latency_ms?: Record<string, number>;
}

/** The original text with every detected value marked and its type named. */
function highlighted(text: string, entities: Preview['entities']): ReactNode[] {
  const out: ReactNode[] = [];
  let at = 0;
  for (const e of [...entities].sort((a, b) => a.start - b.start)) {
    if (e.start < at) continue;
    out.push(text.slice(at, e.start));
    out.push(
      <mark key={`${e.start}-${e.end}`} data-entity={e.type}>
        {text.slice(e.start, e.end)}
        <span className="tag"> {e.type}</span>
      </mark>,
    );
    at = e.end;
  }
  out.push(text.slice(at));
  return out;
}

export default function DataShield() {
  const [text, setText] = useState('Please call Maria Schmidt at +49 30 26418969 or write to maria.schmidt@example.com about invoice DE89 3704 0044 0532 0130 00.');
  const [result, setResult] = useState<{ text: string; preview: Preview }>();
  const action = useAction();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    await action.run(async () => setResult({ text, preview: await api.post<Preview>('/data-shield/preview', { text }) }));
  };
  return (
    <>
      <PageHeader title="Data Shield preview" />
      <Section title="Text to check">
        <form onSubmit={(e) => void submit(e)}>
          <label htmlFor="ds-text">Text</label>
          <textarea id="ds-text" rows={5} value={text} onChange={(e) => setText(e.target.value)} required />
          <button type="submit" disabled={action.busy}>
            Preview
          </button>
        </form>
        <ErrorMessage error={action.error} />
      </Section>
      {result ? (
        <>
          <Section title="Detected values">
            <p data-testid="shield-highlighted">{highlighted(result.text, result.preview.entities)}</p>
            <ul aria-label="Counts by type">
              {Object.entries(result.preview.entity_counts).map(([t, n]) => (
                <li key={t}>
                  {t}: {n}
                </li>
              ))}
            </ul>
          </Section>
          <Section title="What the provider would see">
            <p>{result.preview.tokenised_text}</p>
          </Section>
        </>
      ) : null}
    </>
  );
}
