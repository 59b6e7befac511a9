import { BarChart } from '../components/BarChart';
import { ErrorMessage, Loading, PageHeader, Section, TableHead } from '../components/ui';
import { api } from '../lib/api';
import { formatCost, formatDate, formatSeconds } from '../lib/format';
import { Link } from '../lib/router';
import { useData } from '../lib/use-data';

interface Overview {
  total_executions: number;
  successful: number;
  failed: number;
  awaiting_input: number;
  success_rate: number;
  avg_execution_time_seconds: number | null;
  by_workflow: { activity_id: number; workflow_name: string; executions: number; success_rate: number; avg_time: number | null }[];
  by_day: { date: string; executions: number; success: number }[];
}

interface RecentErrors {
  errors: { execution_id: number; workflow_name: string; failed_step: string | null; error_type: string | null; error_message: string | null; occurred_at: string }[];
  total: number;
}

interface WorkflowCost {
  name: string;
  cost: number;
}

export default function Analytics() {
  const overview = useData((signal) => api.get<{ data: Overview }>('/workflows/metrics/overview?period=last_30_days', { signal }).then((b) => b.data), []);
  const errors = useData((signal) => api.get<{ data: RecentErrors }>('/workflows/errors/recent?limit=10', { signal }).then((b) => b.data), []);
  const costs = useData(
    async (signal): Promise<WorkflowCost[]> => {
      const top = (overview.data?.by_workflow ?? []).slice(0, 8);
      return Promise.all(
        top.map(async (w) => {
          const a = await api.get<{ data: { last_30_days: { total_cost: number } } }>(`/workflows/${w.activity_id}/analytics`, { signal });
          return { name: w.workflow_name, cost: a.data.last_30_days.total_cost ?? 0 };
        }),
      );
    },
    [overview.data],
  );
  const o = overview.data;
  return (
    <>
      <PageHeader title="Analytics" />
      <ErrorMessage error={overview.error ?? errors.error} />
      {o ? (
        <>
          <p>
            Last 30 days: <strong>{o.total_executions}</strong> executions, <strong>{o.success_rate}%</strong> successful, {o.failed} failed, {o.awaiting_input} waiting for input, average{' '}
            {formatSeconds(o.avg_execution_time_seconds)}.
          </p>
          <div className="grid2">
            <Section title="Executions over time">
              <BarChart title="Executions per day" bars={o.by_day.map((d) => ({ label: d.date.slice(5, 10), value: d.executions }))} />
            </Section>
            <Section title="Success rate by workflow">
              <BarChart title="Success rate by workflow" bars={o.by_workflow.map((w) => ({ label: w.workflow_name, value: w.success_rate }))} format={(v) => `${Math.round(v)}%`} max={100} />
            </Section>
          </div>
          <Section title="Cost per workflow">
            {costs.data ? <BarChart title="Cost per workflow, last 30 days" bars={costs.data.map((c) => ({ label: c.name, value: c.cost }))} format={formatCost} /> : <Loading what="costs" />}
          </Section>
        </>
      ) : (
        <Loading what="analytics" />
      )}
      <Section title="Recent errors">
        {errors.data ? (
          <table>
            <TableHead columns={['Execution', 'Workflow', 'Step', 'Type', 'Message', 'When']} />
            <tbody>
              {errors.data.errors.map((e) => (
                <tr key={e.execution_id}>
                  <td>
                    <Link to={`/executions/${e.execution_id}`}>#{e.execution_id}</Link>
                  </td>
                  <td>{e.workflow_name}</td>
                  <td>{e.failed_step}</td>
                  <td>{e.error_type}</td>
                  <td>{e.error_message}</td>
                  <td>{formatDate(e.occurred_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <Loading what="errors" />
        )}
      </Section>
    </>
  );
}
