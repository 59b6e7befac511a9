import { blankDefinition, decisionLabels, inputFields, nextNodeId, problemsByNode, renameNode, withInputFields } from './definition';
import type { WorkflowDefinition, WorkflowNode } from './types';

const task = (id: string, taskType: string, config: Record<string, unknown> = {}): WorkflowNode => ({ id, type: 'task', position: { x: 0, y: 0 }, data: { label: id, task_type: taskType, config } });

describe('editor rules', () => {
  it('names new nodes after their task type, never reusing an id', () => {
    const nodes = [...blankDefinition().nodes, task('decision_1', 'decision')];
    expect(nextNodeId('decision', nodes)).toBe('decision_2');
    expect(nextNodeId('email_send_task', nodes)).toBe('email_send_1');
  });

  it('renames a node and the edges that name it, and refuses a taken or malformed id', () => {
    const def: WorkflowDefinition = {
      ...blankDefinition(),
      nodes: [...blankDefinition().nodes, task('decision_1', 'decision')],
      edges: [
        { id: 'e1', source: 'start', target: 'decision_1' },
        { id: 'e2', source: 'decision_1', target: 'end', label: 'false' },
      ],
    };
    const renamed = renameNode(def, 'decision_1', 'check_amount');
    expect(typeof renamed).toBe('object');
    const d = renamed as WorkflowDefinition;
    expect(d.nodes.map((n) => n.id)).toEqual(['start', 'end', 'check_amount']);
    expect(d.edges.map((e) => `${e.source}>${e.target}`)).toEqual(['start>check_amount', 'check_amount>end']);
    expect(renameNode(def, 'decision_1', 'end')).toBe('Another node is already called end');
    expect(renameNode(def, 'decision_1', 'has space')).toMatch(/letters, digits/);
  });

  it('puts a validation problem on every node whose id it names, as a whole word', () => {
    const nodes = [task('check', 'decision'), task('check_amount', 'decision')];
    const byNode = problemsByNode(['Decision node check_amount must have exactly 2 outgoing edges (found 0)'], nodes);
    expect([...byNode.keys()]).toEqual(['check_amount']);
  });

  it('gives a decision its branch labels, defaults included', () => {
    expect(decisionLabels(task('d', 'decision', { true_label: 'review', false_label: 'auto_approve' }))).toEqual(['review', 'auto_approve']);
    expect(decisionLabels(task('d', 'decision_task'))).toEqual(['true', 'false']);
    expect(decisionLabels(task('m', 'email_send_task'))).toEqual([]);
  });

  it('writes the run’s inputs as input_schema and reads them back', () => {
    const def = withInputFields(blankDefinition(), [
      { name: 'amount', type: 'number', required: true },
      { name: 'note', type: 'string', required: false },
      { name: ' ', type: 'string', required: true },
    ]);
    expect(def.input_schema).toEqual({ type: 'object', properties: { amount: { type: 'number' }, note: { type: 'string' } }, required: ['amount'] });
    expect(inputFields(def)).toEqual([
      { name: 'amount', type: 'number', required: true },
      { name: 'note', type: 'string', required: false },
    ]);
  });
});
