import { WorkflowEvaluationError } from './jsonpath';
import { applyOutputMapping } from './output-mapping';

const result = {
  data: { x: 1, items: [{ id: 'a' }, { id: 'b' }], empty: null, nested: { deep: [1, 2] } },
  _status_code: 200,
  _raw_response: { success: true, data: {}, meta: { next: 'cursor-2' } },
};

describe('applyOutputMapping', () => {
  it('evaluates each JSONPath against the result object', () => {
    expect(
      applyOutputMapping(result, {
        x: '$.data.x',
        first_id: '$.data.items[0].id',
        status: '$._status_code',
        next: '$._raw_response.meta.next',
        nested: '$.data.nested',
      }),
    ).toEqual({ x: 1, first_id: 'a', status: 200, next: 'cursor-2', nested: { deep: [1, 2] } });
  });

  it('keeps several matches as an array and gives null for no match', () => {
    expect(applyOutputMapping(result, { ids: '$.data.items[*].id', none: '$.data.nope', nulled: '$.data.empty', deep: '$..id' })).toEqual({
      ids: ['a', 'b'],
      none: null,
      nulled: null,
      deep: ['a', 'b'],
    });
  });

  it('gives null for non-string paths and ignores a non-object mapping', () => {
    expect(applyOutputMapping(result, { a: 5 })).toEqual({ a: null });
    expect(applyOutputMapping(result, undefined)).toEqual({});
    expect(applyOutputMapping(result, ['$.data'])).toEqual({});
  });

  it('refuses script expressions', () => {
    expect(() => applyOutputMapping(result, { a: '$.data.items[?(@.id=="a")]' })).toThrow(WorkflowEvaluationError);
    expect(() => applyOutputMapping(result, { a: '$.data.items[(@.length-1)]' })).toThrow(/prevented in JSONPath expression/);
    // Paths naming prototype keys are refused before jsonpath-plus sees them.
    expect(applyOutputMapping(result, { a: '$.data.items[?(@.constructor.constructor("return process")())]' })).toEqual({ a: null });
  });

  it('never reads through prototypes or writes prototype keys', () => {
    const mapping = JSON.parse('{"__proto__": "$.data", "c": "$.data.constructor", "p": "$.__proto__", "t": "$.data.x.toString"}') as unknown;
    const out = applyOutputMapping(result, mapping);
    expect(out).toEqual({ c: null, p: null, t: null });
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  });

  it('works on non-object results', () => {
    expect(applyOutputMapping('text', { all: '$' })).toEqual({ all: 'text' });
    expect(applyOutputMapping(undefined, { x: '$.x' })).toEqual({ x: null });
  });
});
