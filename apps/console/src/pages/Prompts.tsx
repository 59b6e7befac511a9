import { type FormEvent, useState } from 'react';
import { ErrorMessage, Loading, PageHeader, Section, TableHead } from '../components/ui';
import { api } from '../lib/api';
import type { ListBody } from '../lib/types';
import { useAction } from '../lib/use-action';
import { useData } from '../lib/use-data';

interface Prompt {
  id: number;
  title: string;
  type: string;
  level: string;
  section?: string | null;
  description?: string | null;
  instructions?: string[];
}

export default function Prompts() {
  const list = useData((signal) => api.get<ListBody<Prompt>>('/prompts?pagination[pageSize]=100', { signal }), []);
  const [title, setTitle] = useState('');
  const [type, setType] = useState('extraction');
  const [section, setSection] = useState('');
  const [instructions, setInstructions] = useState('');
  const action = useAction();
  const create = async (e: FormEvent) => {
    e.preventDefault();
    const ok = await action.run(() =>
      api.post('/prompts', {
        data: {
          title,
          type,
          level: 'user',
          section,
          instructions: instructions
            .split('\n')
            .map((s) => s.trim())
            .filter(Boolean),
          outputFormat: 'json',
        },
      }),
    );
    if (ok) {
      setTitle('');
      setInstructions('');
      list.reload();
    }
  };
  return (
    <>
      <PageHeader title="Prompts" />
      <Section title="New prompt">
        <form onSubmit={(e) => void create(e)}>
          <label htmlFor="p-title">Title</label>
          <input id="p-title" value={title} onChange={(e) => setTitle(e.target.value)} required />
          <label htmlFor="p-type">Type</label>
          <select id="p-type" value={type} onChange={(e) => setType(e.target.value)}>
            <option>extraction</option>
            <option>classification</option>
            <option>summarization</option>
          </select>
          <label htmlFor="p-section">Section</label>
          <input id="p-section" value={section} onChange={(e) => setSection(e.target.value)} />
          <label htmlFor="p-instr">Instructions (one a line)</label>
          <textarea id="p-instr" rows={3} value={instructions} onChange={(e) => setInstructions(e.target.value)} />
          <button type="submit" disabled={action.busy}>
            Create prompt
          </button>
          <ErrorMessage error={action.error} />
        </form>
      </Section>
      <ErrorMessage error={list.error} />
      {list.data ? (
        <table>
          <TableHead columns={['Title', 'Type', 'Level', 'Section', 'Instructions', 'Actions']} />
          <tbody>
            {list.data.data.map((p) => (
              <tr key={p.id}>
                <td>{p.title}</td>
                <td>{p.type}</td>
                <td>{p.level}</td>
                <td>{p.section ?? ''}</td>
                <td>{(p.instructions ?? []).join(' · ')}</td>
                <td>
                  {p.level === 'user' ? (
                    <button type="button" className="secondary" aria-label={`Delete ${p.title}`} onClick={() => void action.run(() => api.del(`/prompts/${p.id}`)).then(list.reload)}>
                      Delete
                    </button>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <Loading what="prompts" />
      )}
    </>
  );
}
