import { useState } from 'react';
import { ErrorMessage, Loading, PageHeader, TableHead } from '../components/ui';
import { api, getSession, listQuery } from '../lib/api';
import { formatDate } from '../lib/format';
import type { ListBody } from '../lib/types';
import { useData } from '../lib/use-data';

interface AuditRow {
  id: number;
  action: string;
  actor_user: number | null;
  tenant: string | null;
  correlation_id: string | null;
  details: Record<string, unknown> | null;
  created_at: string;
}

/** The audit log: everyone's rows for a super administrator, the caller's own for everyone else. */
export default function Audit() {
  const admin = getSession()?.user.role === 'super_admin';
  const [action, setAction] = useState('');
  const rows = useData(
    (signal) => api.get<ListBody<AuditRow>>(`${admin ? '/admin/audit-log' : '/audit-log/me'}${listQuery({ 'pagination[pageSize]': 100, ...(admin ? { action } : {}) })}`, { signal }),
    [admin, action],
  );
  return (
    <>
      <PageHeader title={admin ? 'Audit log' : 'Your audit log'} />
      {admin ? (
        <div className="filters" role="search" aria-label="Filter the audit log">
          <div>
            <label htmlFor="au-action">Action</label>
            <input id="au-action" type="search" value={action} onChange={(e) => setAction(e.target.value)} placeholder="auth.login" />
          </div>
        </div>
      ) : null}
      <ErrorMessage error={rows.error} />
      {rows.data ? (
        <table>
          <TableHead columns={['When', 'Action', 'Actor', 'Correlation id', 'Details']} />
          <tbody>
            {rows.data.data.map((r) => (
              <tr key={r.id}>
                <td>{formatDate(r.created_at)}</td>
                <td>{r.action}</td>
                <td>{r.actor_user ?? ''}</td>
                <td>
                  <code>{r.correlation_id}</code>
                </td>
                <td className="wrap">
                  <code>{r.details ? JSON.stringify(r.details) : ''}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <Loading what="the audit log" />
      )}
    </>
  );
}
