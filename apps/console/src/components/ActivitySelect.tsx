import { api } from '../lib/api';
import type { Activity, ListBody } from '../lib/types';
import { useData } from '../lib/use-data';

/** A labelled choice of the caller's workflows. */
export function ActivitySelect({ id, value, onChange }: { id: string; value: string; onChange: (v: string) => void }) {
  const list = useData((signal) => api.get<ListBody<Activity>>('/activities?pagination[pageSize]=100', { signal }), []);
  return (
    <>
      <label htmlFor={id}>Workflow</label>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value)} required>
        <option value="">—</option>
        {(list.data?.data ?? []).map((a) => (
          <option key={a.id} value={a.id}>
            {a.name}
          </option>
        ))}
      </select>
    </>
  );
}
