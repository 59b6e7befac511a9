import { Background, Controls, Handle, type Node, type NodeChange, type NodeProps, Position, type XYPosition } from '@xyflow/react';
import { useState } from 'react';
import '@xyflow/react/dist/style.css';
import type { WorkflowNode } from '../lib/types';

export interface StateNodeData extends Record<string, unknown> {
  label: string;
  taskType: string;
  /** Task state in an execution (spec 3.3), when there is one. */
  state?: string;
  /** Validation problems naming this node (the editor). */
  problems?: string[];
  selected?: boolean;
}

export type StateNode = Node<StateNodeData, 'state'>;

const STATE_TEXT: Record<string, string> = { awaiting_input: 'awaiting input', awaiting_user_input: 'awaiting input' };

/** A node drawn with its label, task type and state in words as well as colour (colour alone tells a screen reader nothing). */
function StateNodeView({ data, id }: NodeProps<StateNode>) {
  const classes = ['flow-node', data.state ? `state-${data.state}` : '', data.problems?.length ? 'invalid' : '', data.selected ? 'selected' : ''];
  return (
    <div className={classes.filter(Boolean).join(' ')} data-node-id={id} data-state={data.state ?? ''}>
      <Handle type="target" position={Position.Left} />
      <div>
        <strong>{data.label || id}</strong>
      </div>
      <div className="kind">{data.taskType}</div>
      {data.state ? <div className="node-state">{STATE_TEXT[data.state] ?? data.state}</div> : null}
      {(data.problems ?? []).map((p) => (
        <div className="node-error" key={p}>
          {p}
        </div>
      ))}
      <Handle type="source" position={Position.Right} />
    </div>
  );
}

export const nodeTypes = { state: StateNodeView };

/** Node kind shown on the canvas: start and end by their type, tasks by their task type. */
export function kindOf(n: WorkflowNode): string {
  return n.type === 'start' || n.type === 'end' ? n.type : n.data.task_type;
}

export function toFlowNode(n: WorkflowNode, extra: Partial<StateNodeData> = {}): StateNode {
  return { id: n.id, type: 'state', position: n.position ?? { x: 0, y: 0 }, data: { label: n.data?.label ?? n.id, taskType: kindOf(n), ...extra } };
}

/**
 * Nodes built from a definition on every render, with the sizes React Flow
 * measured kept across renders (a controlled flow shows a node only once its
 * size is known). Moves go to `onMove`.
 */
export function useFlowNodes(base: StateNode[], onMove?: (id: string, position: XYPosition) => void) {
  const [measured, setMeasured] = useState<Record<string, { width: number; height: number }>>({});
  const nodes = base.map((n) => (measured[n.id] ? { ...n, measured: measured[n.id] } : n));
  const onNodesChange = (changes: NodeChange<StateNode>[]) => {
    const sized = changes.flatMap((c) => (c.type === 'dimensions' && c.dimensions ? [[c.id, c.dimensions] as const] : []));
    if (sized.length) setMeasured((m) => ({ ...m, ...Object.fromEntries(sized) }));
    if (onMove) for (const c of changes) if (c.type === 'position' && c.position) onMove(c.id, c.position);
  };
  return { nodes, onNodesChange };
}

export { Background, Controls };
