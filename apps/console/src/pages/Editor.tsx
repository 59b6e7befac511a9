import { type Connection, type Edge, ReactFlow } from '@xyflow/react';
import { type FormEvent, useEffect, useMemo, useState } from 'react';
import { Background, Controls, nodeTypes, toFlowNode, useFlowNodes } from '../components/Graph';
import { SchemaForm, schemaDefaults } from '../components/SchemaForm';
import { ErrorMessage, Loading, PageHeader, Section } from '../components/ui';
import { api, errorText } from '../lib/api';
import { blankDefinition, decisionLabels, type FieldType, inputFields, nextEdgeId, nextNodeId, problemsByNode, renameNode, withInputFields } from '../lib/definition';
import { Link, navigate } from '../lib/router';
import type { Activity, TaskType, WorkflowDefinition, WorkflowNode } from '../lib/types';
import { useData } from '../lib/use-data';

interface Loaded {
  activity: Activity | null;
  taskTypes: TaskType[];
}

/** The visual editor: /activities/new and /activities/{id}/edit. */
export default function Editor({ params }: { params: string[] }) {
  const id = params[0] ? Number(params[0]) : null;
  const loaded = useData(
    async (signal): Promise<Loaded> => {
      const [types, activity] = await Promise.all([
        api.get<{ data: { task_types: TaskType[] } }>('/workflows/task-types', { signal }),
        id ? api.get<{ data: Activity }>(`/activities/${id}`, { signal }).then((b) => b.data) : Promise.resolve(null),
      ]);
      return { activity, taskTypes: types.data.task_types };
    },
    [id],
  );
  if (loaded.error) return <ErrorMessage error={loaded.error} />;
  if (!loaded.data) return <Loading what="the editor" />;
  return <EditorForm key={id ?? 'new'} activity={loaded.data.activity} taskTypes={loaded.data.taskTypes} />;
}

function EditorForm({ activity, taskTypes }: { activity: Activity | null; taskTypes: TaskType[] }) {
  const [name, setName] = useState(activity?.name ?? '');
  const [description, setDescription] = useState(activity?.description ?? '');
  const [status, setStatus] = useState(activity?.status ?? 'active');
  const [def, setDef] = useState<WorkflowDefinition>(() => activity?.workflow_definition ?? blankDefinition());
  const [selected, setSelected] = useState<string | null>(null);
  const [addType, setAddType] = useState(taskTypes[0]?.id ?? '');
  const [problems, setProblems] = useState<string[] | null>(null);
  const [message, setMessage] = useState<string>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const byNode = useMemo(() => problemsByNode(problems ?? [], def.nodes), [problems, def.nodes]);
  const typeOf = (t: string) => taskTypes.find((x) => x.id === t);
  const selectedNode = def.nodes.find((n) => n.id === selected);

  const flow = useFlowNodes(
    def.nodes.map((n) => toFlowNode(n, { problems: byNode.get(n.id), selected: n.id === selected })),
    (nodeId, position) => setDef((d) => ({ ...d, nodes: d.nodes.map((n) => (n.id === nodeId ? { ...n, position } : n)) })),
  );
  const flowEdges: Edge[] = def.edges.map((e) => ({ id: e.id, source: e.source, target: e.target, label: e.label }));

  const changed = (next: WorkflowDefinition) => {
    setDef(next);
    setMessage(undefined);
  };

  const addNode = (e: FormEvent) => {
    e.preventDefault();
    const t = typeOf(addType);
    if (!t) return;
    const right = Math.max(0, ...def.nodes.filter((n) => n.type !== 'end').map((n) => n.position.x));
    const node: WorkflowNode = {
      id: nextNodeId(t.id, def.nodes),
      type: 'task',
      position: { x: right + 220, y: (def.nodes.length % 3) * 90 - 90 },
      data: { label: t.name, task_type: t.id, config: schemaDefaults(t.config_schema) },
    };
    changed({ ...def, nodes: [...def.nodes, node] });
    setSelected(node.id);
  };

  const connect = (source: string, target: string, label?: string) => {
    if (!source || !target || source === target) return;
    const labels = decisionLabels(def.nodes.find((n) => n.id === source));
    // A decision's edges carry its branch labels: the first edge gets the true label, the second the false one.
    const used = new Set(def.edges.filter((e) => e.source === source).map((e) => e.label));
    const auto = label || labels.find((l) => !used.has(l));
    changed({ ...def, edges: [...def.edges, { id: nextEdgeId(def.edges), source, target, ...(auto ? { label: auto } : {}) }] });
  };

  const updateNode = (nodeId: string, patch: Partial<WorkflowNode['data']>) => changed({ ...def, nodes: def.nodes.map((n) => (n.id === nodeId ? { ...n, data: { ...n.data, ...patch } } : n)) });

  const removeNode = (nodeId: string) => {
    changed({ ...def, nodes: def.nodes.filter((n) => n.id !== nodeId), edges: def.edges.filter((e) => e.source !== nodeId && e.target !== nodeId) });
    setSelected(null);
  };

  const validate = async (): Promise<boolean> => {
    const res = await api.post<{ data: { valid: boolean; errors: string[] } }>('/workflows/validate', { workflow_definition: def });
    setProblems(res.data.errors);
    return res.data.valid;
  };

  const save = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const valid = await validate();
      const data = { name, description, status: valid ? status : 'draft', workflow_type: activity?.workflow_type ?? 'sequential', workflow_definition: def };
      if (activity) {
        await api.put(`/activities/${activity.id}`, { data });
        setMessage(valid ? 'Saved.' : 'Saved as a draft: fix the problems listed before running it.');
      } else {
        const created = await api.post<{ data: Activity }>('/activities', { data });
        navigate(`/activities/${created.data.id}/edit`, true);
      }
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <PageHeader title={activity ? `Edit ${activity.name}` : 'New workflow'}>
        {activity ? (
          <Link className="button secondary" to={`/activities/${activity.id}/run`}>
            Run
          </Link>
        ) : null}
      </PageHeader>
      <form onSubmit={(e) => void save(e)} className="card" aria-label="Workflow">
        <div className="row">
          <div>
            <label htmlFor="wf-name">Name</label>
            <input id="wf-name" value={name} onChange={(e) => setName(e.target.value)} required />
          </div>
          <div>
            <label htmlFor="wf-status">Status</label>
            <select id="wf-status" value={status} onChange={(e) => setStatus(e.target.value)}>
              {['draft', 'active', 'paused', 'archived'].map((s) => (
                <option key={s}>{s}</option>
              ))}
            </select>
          </div>
        </div>
        <label htmlFor="wf-description">Description</label>
        <input id="wf-description" value={description ?? ''} onChange={(e) => setDescription(e.target.value)} />
        <div className="row">
          <button type="submit" disabled={busy}>
            Save
          </button>
          <button type="button" className="secondary" onClick={() => void validate().catch((err: unknown) => setError(errorText(err)))}>
            Validate
          </button>
          <span role="status" className="ok">
            {message}
          </span>
        </div>
        <ErrorMessage error={error} />
        {problems && problems.length > 0 ? (
          <div role="alert" className="error">
            <p>The workflow has problems:</p>
            <ul>
              {problems.map((p) => (
                <li key={p}>{p}</li>
              ))}
            </ul>
          </div>
        ) : problems ? (
          <p role="status" className="ok">
            The workflow is valid.
          </p>
        ) : null}
      </form>

      <div className="grid2">
        <Section title="Graph">
          <form className="row" onSubmit={addNode} aria-label="Add a node">
            <label htmlFor="add-type">Task type</label>
            <select id="add-type" value={addType} onChange={(e) => setAddType(e.target.value)}>
              {[...new Set(taskTypes.map((t) => t.category))].map((c) => (
                <optgroup key={c} label={c}>
                  {taskTypes
                    .filter((t) => t.category === c)
                    .map((t) => (
                      <option key={t.id} value={t.id}>
                        {t.name}
                      </option>
                    ))}
                </optgroup>
              ))}
            </select>
            <button type="submit">Add node</button>
          </form>
          <div className="graph" data-testid="editor-graph">
            <ReactFlow
              nodes={flow.nodes}
              edges={flowEdges}
              nodeTypes={nodeTypes}
              onNodesChange={flow.onNodesChange}
              onConnect={(c: Connection) => connect(c.source, c.target)}
              onNodeClick={(_e, n) => setSelected(n.id)}
              fitView
              proOptions={{ hideAttribution: true }}
            >
              <Background />
              <Controls />
            </ReactFlow>
          </div>
          <p className="muted">Drag from a node’s right handle to another node’s left handle to connect them, or use the form below. Select a node to edit it.</p>
          <EdgesPanel def={def} onChange={changed} onConnect={connect} />
        </Section>
        <div>
          <Section title="Node">
            <label htmlFor="node-pick">Selected node</label>
            <select id="node-pick" value={selected ?? ''} onChange={(e) => setSelected(e.target.value || null)}>
              <option value="">—</option>
              {def.nodes.map((n) => (
                <option key={n.id} value={n.id}>
                  {n.data.label} ({n.id})
                </option>
              ))}
            </select>
            {selectedNode ? (
              <NodePanel
                key={selectedNode.id}
                node={selectedNode}
                taskType={typeOf(selectedNode.data.task_type)}
                problems={byNode.get(selectedNode.id) ?? []}
                onUpdate={(patch) => updateNode(selectedNode.id, patch)}
                onRename={(to) => {
                  const next = renameNode(def, selectedNode.id, to);
                  if (typeof next === 'string') return next;
                  changed(next);
                  setSelected(to.trim());
                  return undefined;
                }}
                onRemove={() => removeNode(selectedNode.id)}
              />
            ) : (
              <p className="muted">Select a node on the graph or in the list.</p>
            )}
          </Section>
          <InputSchemaPanel def={def} onChange={changed} />
        </div>
      </div>
    </>
  );
}

function NodePanel(props: {
  node: WorkflowNode;
  taskType: TaskType | undefined;
  problems: string[];
  onUpdate: (patch: Partial<WorkflowNode['data']>) => void;
  onRename: (to: string) => string | undefined;
  onRemove: () => void;
}) {
  const { node, taskType } = props;
  const [idText, setIdText] = useState(node.id);
  const [idError, setIdError] = useState<string>();
  const isTask = node.type !== 'start' && node.type !== 'end';
  return (
    <div>
      <label htmlFor="node-id">Node id</label>
      <div className="row">
        <input id="node-id" value={idText} onChange={(e) => setIdText(e.target.value)} aria-describedby="node-id-hint" />
        <button type="button" className="secondary" onClick={() => setIdError(props.onRename(idText))}>
          Rename
        </button>
      </div>
      <small id="node-id-hint" className="muted">
        Outputs are referenced as {'{{'}
        {node.id}.field{'}}'}
      </small>
      <ErrorMessage error={idError} />
      <label htmlFor="node-label">Label</label>
      <input id="node-label" value={node.data.label} onChange={(e) => props.onUpdate({ label: e.target.value })} />
      {taskType ? <p className="muted">{taskType.description}</p> : null}
      {isTask ? <SchemaForm schema={taskType?.config_schema} value={node.data.config} onChange={(config) => props.onUpdate({ config })} idPrefix={`cfg-${node.id}`} legend="Configuration" /> : null}
      {props.problems.length ? (
        <ul className="error" aria-label="Problems of this node">
          {props.problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      ) : null}
      <button type="button" className="danger" onClick={props.onRemove}>
        Delete node
      </button>
    </div>
  );
}

function EdgesPanel({ def, onChange, onConnect }: { def: WorkflowDefinition; onChange: (d: WorkflowDefinition) => void; onConnect: (s: string, t: string, label?: string) => void }) {
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [label, setLabel] = useState('');
  const labels = decisionLabels(def.nodes.find((n) => n.id === from));
  useEffect(() => setLabel(''), [from]);
  const add = (e: FormEvent) => {
    e.preventDefault();
    onConnect(from, to, label || undefined);
    setTo('');
  };
  const setEdgeLabel = (edgeId: string, value: string) => onChange({ ...def, edges: def.edges.map((x) => (x.id === edgeId ? { ...x, ...(value ? { label: value } : { label: undefined }) } : x)) });
  const options = def.nodes.map((n) => (
    <option key={n.id} value={n.id}>
      {n.data.label} ({n.id})
    </option>
  ));
  return (
    <>
      <form className="row" onSubmit={add} aria-label="Connect two nodes">
        <div>
          <label htmlFor="edge-from">From</label>
          <select id="edge-from" value={from} onChange={(e) => setFrom(e.target.value)} required>
            <option value="">—</option>
            {options}
          </select>
        </div>
        <div>
          <label htmlFor="edge-to">To</label>
          <select id="edge-to" value={to} onChange={(e) => setTo(e.target.value)} required>
            <option value="">—</option>
            {options}
          </select>
        </div>
        <div>
          <label htmlFor="edge-label">Branch label</label>
          {labels.length ? (
            <select id="edge-label" value={label} onChange={(e) => setLabel(e.target.value)}>
              <option value="">next free branch</option>
              {labels.map((l) => (
                <option key={l}>{l}</option>
              ))}
            </select>
          ) : (
            <input id="edge-label" value={label} onChange={(e) => setLabel(e.target.value)} />
          )}
        </div>
        <button type="submit">Connect</button>
      </form>
      <table aria-label="Edges">
        <thead>
          <tr>
            <th scope="col">From</th>
            <th scope="col">To</th>
            <th scope="col">Label</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {def.edges.map((e) => (
            <tr key={e.id}>
              <td>{e.source}</td>
              <td>{e.target}</td>
              <td>
                <input aria-label={`Label of the edge from ${e.source} to ${e.target}`} value={e.label ?? ''} onChange={(ev) => setEdgeLabel(e.id, ev.target.value)} />
              </td>
              <td>
                <button
                  type="button"
                  className="secondary"
                  onClick={() => onChange({ ...def, edges: def.edges.filter((x) => x.id !== e.id) })}
                  aria-label={`Remove the edge from ${e.source} to ${e.target}`}
                >
                  Remove
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

function InputSchemaPanel({ def, onChange }: { def: WorkflowDefinition; onChange: (d: WorkflowDefinition) => void }) {
  const [fields, setFields] = useState(() => inputFields(def));
  const update = (next: typeof fields) => {
    setFields(next);
    onChange(withInputFields(def, next));
  };
  return (
    <Section title="Inputs of a run">
      <p className="muted">The input_schema: what a run asks for. Configs use the values as {'{{name}}'} or $.name.</p>
      {fields.map((f, i) => (
        <fieldset key={i} className="row">
          <legend>Input {i + 1}</legend>
          <div>
            <label htmlFor={`in-name-${i}`}>Name</label>
            <input id={`in-name-${i}`} value={f.name} onChange={(e) => update(fields.map((x, j) => (j === i ? { ...x, name: e.target.value } : x)))} />
          </div>
          <div>
            <label htmlFor={`in-type-${i}`}>Type</label>
            <select id={`in-type-${i}`} value={f.type} onChange={(e) => update(fields.map((x, j) => (j === i ? { ...x, type: e.target.value as FieldType } : x)))}>
              {['string', 'number', 'integer', 'boolean'].map((t) => (
                <option key={t}>{t}</option>
              ))}
            </select>
          </div>
          <label>
            <input type="checkbox" checked={f.required} onChange={(e) => update(fields.map((x, j) => (j === i ? { ...x, required: e.target.checked } : x)))} /> Required
          </label>
          <button type="button" className="secondary" onClick={() => update(fields.filter((_, j) => j !== i))} aria-label={`Remove input ${f.name || i + 1}`}>
            Remove
          </button>
        </fieldset>
      ))}
      <button type="button" className="secondary" onClick={() => update([...fields, { name: '', type: 'string', required: true }])}>
        Add input
      </button>
    </Section>
  );
}
