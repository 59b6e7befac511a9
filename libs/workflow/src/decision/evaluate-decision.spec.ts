import { WorkflowEvaluationError } from '../jsonpath';
import { buildScope } from '../templates';
import { evaluateDecision } from './evaluate-decision';
import { applyOperator, looseEquals, toNumber } from './operators';

const scope = buildScope({
  inputs: { amount: 150, amount_text: '150', country: 'DE', tags: ['urgent', 'vip'], note: 'Invoice INV-2024-001 overdue', limit: '100' },
  context: { user_id: 7, execution_id: 99 },
  outputs: {
    classify: { classification: { type: 'invoice', confidence: 0.93 }, flags: { approved: true } },
    'node-2': {
      items: [
        { id: 1, price: 10 },
        { id: 2, price: 30 },
      ],
    },
  },
});

const decide = (config: Record<string, unknown>) => evaluateDecision(config, scope);

describe('evaluateDecision', () => {
  it('evaluates a JSONPath against a literal and reports the whole outcome', () => {
    expect(decide({ operator: '>', left_operand: '$.amount', right_operand: 100 })).toEqual({
      result: true,
      branch: 'true',
      decision: 'true',
      active_path: 'true',
      condition: { operator: '>', left_operand: '$.amount', right_operand: 100, left_value: 150, right_value: 100 },
    });
  });

  it('uses custom labels for the branch and active_path', () => {
    const outcome = decide({ operator: '==', left_operand: '$.classify.classification.type', right_operand: 'receipt', true_label: 'receipt', false_label: 'other' });
    expect(outcome).toMatchObject({ result: false, branch: 'other', decision: 'false', active_path: 'other' });
    expect(outcome.condition.left_value).toBe('invoice');
  });

  it('resolves JSONPaths on either side, including bracket paths and hyphenated node ids', () => {
    expect(decide({ operator: '<', left_operand: "$['node-2'].items[0].price", right_operand: '$.node-2.items[1].price' }).result).toBe(true);
    expect(decide({ operator: '==', left_operand: '$.classify.flags.approved', right_operand: true }).result).toBe(true);
  });

  it('resolves templates in literal operands', () => {
    const outcome = decide({ operator: '==', left_operand: '{{country}}', right_operand: 'DE' });
    expect(outcome.result).toBe(true);
    expect(outcome.condition.left_value).toBe('DE');
    expect(decide({ operator: '>=', left_operand: '$.amount', right_operand: '{{limit}}' }).result).toBe(true);
  });

  it('gives null for a JSONPath without match', () => {
    const outcome = decide({ operator: '==', left_operand: '$.missing.field', right_operand: null });
    expect(outcome.result).toBe(true);
    expect(outcome.condition.left_value).toBeNull();
    expect(decide({ operator: '>', left_operand: '$.missing', right_operand: 0 }).result).toBe(false);
  });

  it('refuses script expressions in JSONPaths', () => {
    expect(() => decide({ operator: '==', left_operand: '$.node-2.items[?(@.price > 10)].id', right_operand: 2 })).toThrow(WorkflowEvaluationError);
    expect(() => decide({ operator: '==', left_operand: '$.node-2.items[(@.length-1)]', right_operand: 2 })).toThrow(/prevented/);
  });

  it('finds nothing through prototype keys', () => {
    expect(decide({ operator: '==', left_operand: '$.constructor', right_operand: null }).condition.left_value).toBeNull();
    expect(decide({ operator: '==', left_operand: '$.__proto__', right_operand: null }).condition.left_value).toBeNull();
    expect(decide({ operator: '==', left_operand: "$['classify']['constructor']['name']", right_operand: null }).result).toBe(true);
  });

  it('throws for a config without operator or operands', () => {
    expect(() => evaluateDecision(null, scope)).toThrow('Decision config must be an object');
    expect(() => decide({ left_operand: 1, right_operand: 2 })).toThrow('Decision operator must be one of ==, !=, >, <, >=, <=, in, contains, matches');
    expect(() => decide({ operator: 'like', left_operand: 1, right_operand: 2 })).toThrow(WorkflowEvaluationError);
    expect(() => decide({ operator: '==', right_operand: 2 })).toThrow('Decision config lacks left_operand');
    expect(() => decide({ operator: '==', left_operand: 2 })).toThrow('Decision config lacks right_operand');
  });
});

describe('operators', () => {
  const cases: Array<[string, unknown, unknown, boolean]> = [
    ['==', 5, 5, true],
    ['==', '5', 5, true],
    ['==', '5.0', 5, true],
    ['==', ' 5 ', 5, true],
    ['==', 'abc', 'abc', true],
    ['==', 'abc', 'ABC', false],
    ['==', true, 'true', true],
    ['==', 'FALSE', false, true],
    ['==', true, 1, false],
    ['==', null, undefined, true],
    ['==', null, 0, false],
    ['==', null, '', false],
    ['==', { a: 1, b: [1, 2] }, { b: [1, 2], a: 1 }, true],
    ['==', [1, 2], [2, 1], false],
    ['==', '1e3', 1000, true],
    ['!=', 'a', 'b', true],
    ['!=', '10', 10, false],
    ['>', '10', 9, true],
    ['>', '10', '9', true],
    ['>', 'b', 'a', true],
    ['>', 'abc', 5, false],
    ['>', null, -1, false],
    ['<', 2, 10, true],
    ['<', '2024-01-31', '2024-02-01', true],
    ['>=', 5, '5', true],
    ['>=', 4, 5, false],
    ['<=', 5, 5, true],
    ['<=', 'x', null, false],
    ['in', 'vip', ['urgent', 'vip'], true],
    ['in', '2', [1, 2, 3], true],
    ['in', 'gold', ['urgent', 'vip'], false],
    ['in', 'INV', 'Invoice INV-1', true],
    ['in', 12, 'A-123', true],
    ['in', 'key', { key: 1 }, true],
    ['in', 'toString', { key: 1 }, false],
    ['in', 'x', 5, false],
    ['contains', ['urgent', 'vip'], 'vip', true],
    ['contains', 'Invoice overdue', 'overdue', true],
    ['contains', 'Invoice overdue', 'paid', false],
    ['contains', [{ id: 1 }], { id: 1 }, true],
    ['contains', null, 'x', false],
    ['matches', 'INV-2024-001', '^INV-\\d{4}-\\d{3}$', true],
    ['matches', 'inv-2024-001', '/^INV-\\d+/i', true],
    ['matches', 'inv-2024-001', '^INV-\\d+', false],
    ['matches', 12345, '^\\d+$', true],
    ['matches', null, '.*', false],
  ];

  it.each(cases)('%s: %p vs %p is %p', (operator, left, right, expected) => {
    expect(applyOperator(operator as never, left, right)).toBe(expected);
  });

  it('answers the patterns that backtrack exponentially in V8 at once (linear-time engine)', () => {
    const adversarial = `${'1'.repeat(48)}!`;
    expect(applyOperator('matches', adversarial, '^(\\w|\\d)+$')).toBe(false);
    expect(applyOperator('matches', adversarial, '^\\d*\\d*\\d*\\d*\\d*$')).toBe(false);
    expect(applyOperator('matches', 'a'.repeat(48), '(a+)+$')).toBe(true);
    expect(applyOperator('matches', '1'.repeat(48), '^(\\w|\\d)+$')).toBe(true);
  });

  it('rejects unusable patterns for matches', () => {
    expect(() => applyOperator('matches', 'aaaa', '(?=a)a')).toThrow(/not supported by the linear-time engine/);
    expect(() => applyOperator('matches', 'aaaa', '[')).toThrow(/not a valid regular expression/);
    expect(() => applyOperator('matches', 'aaaa', 5)).toThrow('The matches operator needs a string pattern as right operand');
    expect(() => applyOperator('matches', 'a'.repeat(100_001), 'a')).toThrow(/longer than 100000 characters/);
    expect(() => applyOperator('matches', 'a', '/a/g')).toThrow(/unsupported flags g/);
  });

  it('coerces numbers only from numeric strings', () => {
    expect(toNumber('12')).toBe(12);
    expect(toNumber('-1.5e2')).toBe(-150);
    expect(toNumber('0x10')).toBeUndefined();
    expect(toNumber('')).toBeUndefined();
    expect(toNumber('12abc')).toBeUndefined();
    expect(toNumber(Number.NaN)).toBeUndefined();
    expect(toNumber(Infinity)).toBeUndefined();
    expect(looseEquals('', 0)).toBe(false);
  });
});
