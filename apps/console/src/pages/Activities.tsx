import { ErrorMessage, Loading, PageHeader, StatusBadge, TableHead } from '../components/ui';
import { api } from '../lib/api';
import { formatDate } from '../lib/format';
import { Link } from '../lib/router';
import type { Activity, ListBody } from '../lib/types';
import { useData } from '../lib/use-data';

export default function Activities() {
  const list = useData((signal) => api.get<ListBody<Activity>>('/activities?pagination[pageSize]=100&sort=updatedAt:desc', { signal }), []);
  return (
    <>
      <PageHeader title="Workflows">
        <Link className="button" to="/activities/new">
          New workflow
        </Link>
      </PageHeader>
      <ErrorMessage error={list.error} />
      {list.data ? (
        <table>
          <TableHead columns={['Name', 'Status', 'Level', 'Nodes', 'Updated', 'Actions']} />
          <tbody>
            {list.data.data.map((a) => (
              <tr key={a.id}>
                <td>{a.name}</td>
                <td>
                  <StatusBadge status={a.status} />
                </td>
                <td>{a.level}</td>
                <td>{a.workflow_definition?.nodes?.length ?? 0}</td>
                <td>{formatDate(a.updatedAt)}</td>
                <td className="row">
                  <Link to={`/activities/${a.id}/edit`} aria-label={`Edit ${a.name}`}>
                    Edit
                  </Link>
                  <Link to={`/activities/${a.id}/run`} aria-label={`Run ${a.name}`}>
                    Run
                  </Link>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <Loading what="workflows" />
      )}
      {list.data?.data.length === 0 ? <p>No workflows yet.</p> : null}
    </>
  );
}
