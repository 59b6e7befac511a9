import { type Edge, ReactFlow } from '@xyflow/react';
import { type FormEvent, useMemo, useState } from 'react';
import { Background, Controls, nodeTypes, type StateNode, toFlowNode, useFlowNodes } from '../components/Graph';
import { type JsonSchema, SchemaForm, schemaDefaults } from '../components/SchemaForm';
import { ErrorMessage, Json, Loading, PageHeader, Section, StatusBadge, TableHead } from '../components/ui';
import { api, errorText } from '../lib/api';
import { formatCost, formatDate, formatSeconds } from '../lib/format';
import { Link } from '../lib/router';
import { type Activity, type ExecutionStatusBody, TERMINAL, type Timeline } from '../lib/types';
import { useData } from '../lib/use-data';

interface ExecutionBody {
  id: number;
  status: string;
  activity: number;
  inputs: Record<string, unknown>;
  error: string | null;
  failed_node: string | null;
  total_cost: number;
  started_at: string | null;
  completed_at: string | null;
}

const POLL_MS = 2000;

/** One execution: its graph coloured by task state, timeline, inputs and outputs, error, and the resume form while it waits. */
export default function Execution({ params }: { params: string[] }) {
  const id = Number(params[0]);
  const status = useData(
    (signal) => api.get<{ data: ExecutionStatusBody }>(`/workflow-executions/${id}/status`, { signal }).then((b) => b.data),
    [id],
    POLL_MS,
    (s) => !TERMINAL.includes(s.status),
  );
  const settled = status.data ? TERMINAL.includes(status.data.status) : false;
  const execution = useData((signal) => api.get<{ data: ExecutionBody }>(`/workflow-executions/${id}`, { signal }).then((b) => b.data), [id, settled]);
  const timeline = useData(
    (signal) => api.get<{ data: Timeline }>(`/workflow-executions/${id}/timeline`, { signal }).then((b) => b.data),
    [
      id,
      status.data?.status,
      Object.values(status.data?.task_states ?? {})
        .map((t) => t.status)
        .join(),
    ],
  );
  const activityId = execution.data?.activity;
  const activity = useData((signal) => (activityId ? api.get<{ data: Activity }>(`/activities/${activityId}`, { signal }).then((b) => b.data) : Promise.resolve(undefined)), [activityId]);

  const graph = useMemo(() => {
    const def = activity.data?.workflow_definition;
    if (!def) return { nodes: [] as StateNode[], edges: [] as Edge[] };
    const states = status.data?.task_states ?? {};
    // The node a paused run waits at is shown as waiting, whatever its task state says.
    const stateOf = (nodeId: string, type: string) =>
      status.data?.status === 'awaiting_user_input' && status.data.awaiting_node === nodeId ? 'awaiting_input' : (states[nodeId]?.status ?? (type === 'task' ? 'pending' : undefined));
    return {
      nodes: def.nodes.map((n) => toFlowNode(n, { state: stateOf(n.id, n.type) })),
      edges: def.edges.map((e): Edge => ({ id: e.id, source: e.source, target: e.target, label: e.label })),
    };
  }, [activity.data, status.data]);
  const flow = useFlowNodes(graph.nodes);

  if (status.error && !status.data) return <ErrorMessage error={status.error} />;
  if (!status.data) return <Loading what="the execution" />;
  const s = status.data;
  const states = Object.entries(s.task_states ?? {});

  return (
    <>
      <PageHeader title={`Execution #${id}${activity.data ? ` · ${activity.data.name}` : ''}`}>
        <Link to="/executions">All executions</Link>
      </PageHeader>
      <p aria-live="polite">
        Status: <StatusBadge status={s.status} /> · started {formatDate(s.started_at)}
        {s.completed_at ? ` · finished ${formatDate(s.completed_at)}` : ''}
        {timeline.data ? ` · ${formatSeconds(timeline.data.total_duration_seconds)}` : ''}
        {execution.data ? ` · cost ${formatCost(execution.data.total_cost)}` : ''}
      </p>
      {s.error ? (
        <div role="alert" className="card error">
          Failed at node <code>{s.failed_node ?? '?'}</code>: {s.error}
        </div>
      ) : null}
      {s.status === 'awaiting_user_input' && s.correlation_token ? (
        <ResumeForm id={id} node={s.awaiting_node ?? ''} schema={s.awaiting_input_schema ?? undefined} token={s.correlation_token} onResumed={status.reload} />
      ) : null}
      <div className="grid2">
        <Section title="Graph">
          <div className="graph" data-testid="execution-graph">
            <ReactFlow
              nodes={flow.nodes}
              onNodesChange={flow.onNodesChange}
              edges={graph.edges}
              nodeTypes={nodeTypes}
              fitView
              nodesDraggable={false}
              nodesConnectable={false}
              proOptions={{ hideAttribution: true }}
            >
              <Background />
              <Controls showInteractive={false} />
            </ReactFlow>
          </div>
          <table aria-label="Node states">
            <TableHead columns={['Node', 'State', 'Error']} />
            <tbody>
              {states.map(([node, t]) => (
                <tr key={node}>
                  <td>{node}</td>
                  <td>
                    <StatusBadge status={t.status} />
                  </td>
                  <td>{t.error ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </Section>
        <Section title="Inputs">
          <Json value={execution.data?.inputs} label="Inputs" />
        </Section>
      </div>
      <Section title="Timeline">
        {timeline.data ? (
          <table>
            <TableHead columns={['Step', 'Type', 'Status', 'Started', 'Duration', 'Cost', 'Result']} />
            <tbody>
              {timeline.data.timeline.map((t, i) => (
                <tr key={`${t.step_name}-${i}`}>
                  <td>{t.step_name}</td>
                  <td>{t.step_type}</td>
                  <td>
                    <StatusBadge status={t.status} />
                  </td>
                  <td>{formatDate(t.started_at)}</td>
                  <td>{formatSeconds(t.duration_seconds)}</td>
                  <td>{formatCost(t.cost)}</td>
                  <td className="wrap">{t.result_summary ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <Loading what="the timeline" />
        )}
      </Section>
      <Section title="Outputs">
        <Json value={s.outputs} label="Outputs by node" />
      </Section>
    </>
  );
}

function ResumeForm({ id, node, schema, token, onResumed }: { id: number; node: string; schema: JsonSchema | undefined; token: string; onResumed: () => void }) {
  const [payload, setPayload] = useState<Record<string, unknown>>(() => schemaDefaults(schema));
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    try {
      await api.post(`/workflow-executions/${id}/resume`, { correlation_token: token, payload });
      setError(undefined);
      onResumed();
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="card" onSubmit={(e) => void submit(e)} aria-labelledby="resume-title">
      <h2 id="resume-title">Waiting for your input at “{node}”</h2>
      <SchemaForm schema={schema} value={payload} onChange={setPayload} idPrefix="resume" />
      <button type="submit" disabled={busy}>
        Resume
      </button>
      <ErrorMessage error={error} />
    </form>
  );
}
