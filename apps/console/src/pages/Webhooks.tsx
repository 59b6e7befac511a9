import { type FormEvent, useState } from 'react';
import { ActivitySelect } from '../components/ActivitySelect';
import { CopyButton, ErrorMessage, Loading, PageHeader, Section, TableHead, Switch } from '../components/ui';
import { api } from '../lib/api';
import { formatDate } from '../lib/format';
import { useAction } from '../lib/use-action';
import { useData } from '../lib/use-data';

interface Webhook {
  id: number;
  name: string;
  url: string;
  active: boolean;
  trigger_count: number;
  last_triggered_at: string | null;
  activity?: { id: number; name: string | null };
}

/** Webhooks: the trigger URL to copy, and the secret shown once, when it is created or regenerated. */
export default function Webhooks() {
  const list = useData((signal) => api.get<{ data: Webhook[] }>('/webhooks', { signal }), []);
  const [name, setName] = useState('');
  const [activity, setActivity] = useState('');
  const [secret, setSecret] = useState<{ name: string; secret: string }>();
  const action = useAction();
  const create = async (e: FormEvent) => {
    e.preventDefault();
    await action.run(async () => {
      const res = await api.post<{ data: Webhook & { secret_key: string } }>('/webhooks', { activity: Number(activity), name });
      setSecret({ name: res.data.name, secret: res.data.secret_key });
      setName('');
      list.reload();
    });
  };
  const regenerate = (w: Webhook) =>
    action.run(async () => {
      const res = await api.post<{ data: { secret_key: string } }>(`/webhooks/${w.id}/regenerate-secret`);
      setSecret({ name: w.name, secret: res.data.secret_key });
    });
  return (
    <>
      <PageHeader title="Webhooks" />
      <Section title="New webhook">
        <form onSubmit={(e) => void create(e)}>
          <label htmlFor="wh-name">Name</label>
          <input id="wh-name" value={name} onChange={(e) => setName(e.target.value)} required />
          <ActivitySelect id="wh-activity" value={activity} onChange={setActivity} />
          <button type="submit" disabled={action.busy}>
            Create webhook
          </button>
        </form>
        <ErrorMessage error={action.error} />
      </Section>
      {secret ? (
        <div className="card" role="alert">
          <h2>Secret of “{secret.name}”</h2>
          <p>Copy it now: it is shown only this once. Send it as the X-Webhook-Secret header.</p>
          <p className="secret" data-testid="webhook-secret">
            {secret.secret}
          </p>
          <div className="row">
            <CopyButton text={secret.secret} label="Copy secret" />
            <button type="button" className="secondary" onClick={() => setSecret(undefined)}>
              I have stored it
            </button>
          </div>
        </div>
      ) : null}
      <ErrorMessage error={list.error} />
      {list.data ? (
        <table>
          <TableHead columns={['Name', 'Workflow', 'Trigger URL', 'Active', 'Triggers', 'Actions']} />
          <tbody>
            {list.data.data.map((w) => (
              <tr key={w.id}>
                <td>{w.name}</td>
                <td>{w.activity?.name ?? w.activity?.id}</td>
                <td>
                  <code>{w.url}</code> <CopyButton text={w.url} label={`Copy URL of ${w.name}`} />
                </td>
                <td>
                  <Switch checked={w.active} label={`${w.name} active`} onToggle={() => void action.run(() => api.put(`/webhooks/${w.id}`, { active: !w.active })).then(list.reload)} />
                </td>
                <td>
                  {w.trigger_count} {w.last_triggered_at ? `(last ${formatDate(w.last_triggered_at)})` : ''}
                </td>
                <td className="row">
                  <button type="button" className="secondary" onClick={() => void regenerate(w)} aria-label={`New secret for ${w.name}`}>
                    New secret
                  </button>
                  <button type="button" className="secondary" onClick={() => void action.run(() => api.del(`/webhooks/${w.id}`)).then(list.reload)} aria-label={`Delete ${w.name}`}>
                    Delete
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <Loading what="webhooks" />
      )}
    </>
  );
}
