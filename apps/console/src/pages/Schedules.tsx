import { CronExpressionParser } from 'cron-parser';
import { type FormEvent, useState } from 'react';
import { ActivitySelect } from '../components/ActivitySelect';
import { ErrorMessage, Loading, PageHeader, Section, TableHead, Switch } from '../components/ui';
import { api } from '../lib/api';
import { formatDate, userTimeZone } from '../lib/format';
import { useAction } from '../lib/use-action';
import { useData } from '../lib/use-data';

interface Schedule {
  id: number;
  name: string;
  activity: { id: number } | number;
  cron_expression: string;
  timezone: string;
  is_active: boolean;
  next_run_at: string | null;
  last_run_at: string | null;
  last_status: string;
  run_count: number;
  failure_count: number;
}

/** The next `n` runs of a schedule (the cron in its own zone), for display in the user's zone. */
function nextRuns(s: Schedule, n: number): string[] {
  if (!s.is_active) return [];
  try {
    const it = CronExpressionParser.parse(s.cron_expression, { tz: s.timezone });
    return Array.from({ length: n }, () => it.next().toISOString() ?? '');
  } catch {
    return s.next_run_at ? [s.next_run_at] : [];
  }
}

/** Schedules: next runs shown in the user's own time zone, pause and resume. */
export default function Schedules() {
  const list = useData((signal) => api.get<{ data: Schedule[] }>('/workflow-schedules', { signal }), []);
  const [name, setName] = useState('');
  const [activity, setActivity] = useState('');
  const [cron, setCron] = useState('0 8 * * 1-5');
  const [zone, setZone] = useState(userTimeZone());
  const action = useAction();
  const create = async (e: FormEvent) => {
    e.preventDefault();
    if (await action.run(() => api.post('/workflow-schedules', { data: { name, activity: Number(activity), cron_expression: cron, timezone: zone } }))) {
      setName('');
      list.reload();
    }
  };
  return (
    <>
      <PageHeader title="Schedules" />
      <p className="muted">Times are shown in your time zone, {userTimeZone()}.</p>
      <Section title="New schedule">
        <form onSubmit={(e) => void create(e)}>
          <label htmlFor="s-name">Name</label>
          <input id="s-name" value={name} onChange={(e) => setName(e.target.value)} required />
          <ActivitySelect id="s-activity" value={activity} onChange={setActivity} />
          <label htmlFor="s-cron">Cron expression (minute hour day month weekday)</label>
          <input id="s-cron" value={cron} onChange={(e) => setCron(e.target.value)} required />
          <label htmlFor="s-zone">Time zone of the expression</label>
          <input id="s-zone" value={zone} onChange={(e) => setZone(e.target.value)} required />
          <button type="submit" disabled={action.busy}>
            Create schedule
          </button>
        </form>
        <ErrorMessage error={action.error} />
      </Section>
      <ErrorMessage error={list.error} />
      {list.data ? (
        <table>
          <TableHead columns={['Name', 'Cron', 'Next runs (your time)', 'Last run', 'Runs / failures', 'Active', 'Actions']} />
          <tbody>
            {list.data.data.map((s) => (
              <tr key={s.id}>
                <td>{s.name}</td>
                <td>
                  <code>{s.cron_expression}</code> ({s.timezone})
                </td>
                <td>
                  <ul>
                    {nextRuns(s, 3).map((r) => (
                      <li key={r}>{formatDate(r)}</li>
                    ))}
                  </ul>
                </td>
                <td>
                  {formatDate(s.last_run_at)} {s.last_status}
                </td>
                <td>
                  {s.run_count} / {s.failure_count}
                </td>
                <td>
                  <Switch
                    checked={s.is_active}
                    label={`${s.name} active`}
                    off="Paused"
                    onToggle={() => void action.run(() => api.put(`/workflow-schedules/${s.id}`, { data: { is_active: !s.is_active } })).then(list.reload)}
                  />
                </td>
                <td>
                  <button type="button" className="secondary" aria-label={`Delete ${s.name}`} onClick={() => void action.run(() => api.del(`/workflow-schedules/${s.id}`)).then(list.reload)}>
                    Delete
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <Loading what="schedules" />
      )}
    </>
  );
}
