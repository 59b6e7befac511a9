import { normalizeDefinition } from './normalize';
import type { WorkflowDefinition } from './types';

describe('normalizeDefinition', () => {
  const stored: WorkflowDefinition = {
    nodes: [
      { id: 'start', type: 'start', data: { label: 'Start' } },
      { id: 'call', type: 'rest_api_task', data: { label: 'Call', config: { url: 'https://x.test' } } },
      { id: 'd', type: 'decision_task', data: { config: { operator: '==' } } },
      { id: 'explicit', type: 'email_send_task', data: { task_type: 'wait_task', config: {} } },
      { id: 'already', type: 'task', data: { task_type: 'llm_task', config: { prompt_text: 'hi' } } },
      { id: 'out', type: 'output', data: { task_type: 'custom_task', config: { keep: true } } },
      { id: 'weird', type: 'mystery', data: {} },
    ],
    edges: [{ id: 'e1', source: 'start', target: 'call' }],
    input_schema: { type: 'object' },
  };

  it('moves a task type from `type` into data.task_type and sets type task', () => {
    const nodes = normalizeDefinition(stored).nodes;
    expect(nodes[1]).toEqual({ id: 'call', type: 'task', data: { label: 'Call', task_type: 'rest_api_task', config: { url: 'https://x.test' } } });
    expect(nodes[2]).toEqual({ id: 'd', type: 'task', data: { task_type: 'decision_task', config: { operator: '==' } } });
  });

  it('keeps an explicit data.task_type and leaves task nodes as they are', () => {
    const nodes = normalizeDefinition(stored).nodes;
    expect(nodes[3]).toEqual({ id: 'explicit', type: 'task', data: { task_type: 'wait_task', config: {} } });
    expect(nodes[4]).toEqual(stored.nodes[4]);
  });

  it('gives control nodes task_type custom_task and an empty config unless they have one', () => {
    const nodes = normalizeDefinition(stored).nodes;
    expect(nodes[0]).toEqual({ id: 'start', type: 'start', data: { label: 'Start', task_type: 'custom_task', config: {} } });
    expect(nodes[5]).toEqual(stored.nodes[5]);
    expect(normalizeDefinition({ nodes: [{ id: 'end', type: 'end' } as never], edges: [] }).nodes[0]).toEqual({
      id: 'end',
      type: 'end',
      data: { task_type: 'custom_task', config: {} },
    });
  });

  it('leaves unknown node types, edges and input_schema untouched', () => {
    const out = normalizeDefinition(stored);
    expect(out.nodes[6]).toEqual({ id: 'weird', type: 'mystery', data: {} });
    expect(out.edges).toEqual(stored.edges);
    expect(out.input_schema).toEqual({ type: 'object' });
  });

  it('leaves the input as it was: changed nodes and their data are copies; is idempotent', () => {
    const before = JSON.stringify(stored);
    const out = normalizeDefinition(stored);
    expect(out).not.toBe(stored);
    expect(out.nodes).not.toBe(stored.nodes);
    expect(out.nodes[1]).not.toBe(stored.nodes[1]);
    expect(out.nodes[1]!.data).not.toBe(stored.nodes[1]!.data);
    out.nodes[1]!.data['task_type'] = 'changed';
    out.nodes[0]!.data['label'] = 'changed';
    expect(JSON.stringify(stored)).toBe(before);
    expect(normalizeDefinition(normalizeDefinition(stored))).toEqual(normalizeDefinition(stored));
  });
});
