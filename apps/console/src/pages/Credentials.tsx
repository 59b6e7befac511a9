import { type FormEvent, useState } from 'react';
import { ErrorMessage, Loading, PageHeader, Section, TableHead } from '../components/ui';
import { api } from '../lib/api';
import { formatDate } from '../lib/format';
import type { ListBody } from '../lib/types';
import { useAction } from '../lib/use-action';
import { useData } from '../lib/use-data';

interface Credential {
  id: number;
  name: string;
  provider: string;
  description?: string | null;
  field_names: string[];
  createdAt?: string;
}

/** Credentials: values go in through password fields and never come back; deleting one needs step-up. */
export default function Credentials() {
  const list = useData((signal) => api.get<ListBody<Credential>>('/credentials', { signal }), []);
  const [name, setName] = useState('');
  const [provider, setProvider] = useState('');
  const [fields, setFields] = useState([{ key: '', value: '' }]);
  const action = useAction();
  const create = async (e: FormEvent) => {
    e.preventDefault();
    const values = Object.fromEntries(fields.filter((f) => f.key.trim()).map((f) => [f.key.trim(), f.value]));
    if (await action.run(() => api.post('/credentials', { data: { name, provider, fields: values } }))) {
      setName('');
      setProvider('');
      setFields([{ key: '', value: '' }]);
      list.reload();
    }
  };
  return (
    <>
      <PageHeader title="Credentials" />
      <Section title="New credential">
        <form onSubmit={(e) => void create(e)} autoComplete="off">
          <label htmlFor="c-name">Name</label>
          <input id="c-name" value={name} onChange={(e) => setName(e.target.value)} required />
          <label htmlFor="c-provider">Provider</label>
          <input id="c-provider" value={provider} onChange={(e) => setProvider(e.target.value)} required />
          {fields.map((f, i) => (
            <fieldset key={i} className="row">
              <legend>Secret field {i + 1}</legend>
              <div>
                <label htmlFor={`c-key-${i}`}>Field name</label>
                <input id={`c-key-${i}`} value={f.key} onChange={(e) => setFields(fields.map((x, j) => (j === i ? { ...x, key: e.target.value } : x)))} />
              </div>
              <div>
                <label htmlFor={`c-val-${i}`}>Value</label>
                <input
                  id={`c-val-${i}`}
                  type="password"
                  autoComplete="new-password"
                  value={f.value}
                  onChange={(e) => setFields(fields.map((x, j) => (j === i ? { ...x, value: e.target.value } : x)))}
                />
              </div>
            </fieldset>
          ))}
          <div className="row">
            <button type="button" className="secondary" onClick={() => setFields([...fields, { key: '', value: '' }])}>
              Add field
            </button>
            <button type="submit" disabled={action.busy}>
              Save credential
            </button>
          </div>
        </form>
      </Section>
      <ErrorMessage error={action.error ?? list.error} />
      {list.data ? (
        <table>
          <TableHead columns={['Name', 'Provider', 'Fields', 'Created', 'Actions']} />
          <tbody>
            {list.data.data.map((c) => (
              <tr key={c.id}>
                <td>{c.name}</td>
                <td>{c.provider}</td>
                <td>{c.field_names.join(', ')}</td>
                <td>{formatDate(c.createdAt)}</td>
                <td>
                  <button type="button" className="danger" aria-label={`Delete ${c.name}`} onClick={() => void action.run(() => api.del(`/credentials/${c.id}`, { stepUp: true })).then(list.reload)}>
                    Delete
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <Loading what="credentials" />
      )}
      {list.data?.data.length === 0 ? <p>No credentials yet.</p> : null}
    </>
  );
}
