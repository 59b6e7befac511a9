import { fromText, kindOf, schemaDefaults, toText } from './schema-fields';

const template = { type: 'string', pattern: '^\\{\\{[^{}]+\\}\\}$' };

describe('schema fields', () => {
  it('edits a templatable field as its value type, and enums, lists and untyped fields as such', () => {
    expect(kindOf({ anyOf: [{ type: 'number' }, template] })).toBe('number');
    expect(kindOf({ anyOf: [{ type: 'boolean' }, template], default: true })).toBe('boolean');
    expect(kindOf({ anyOf: [{ type: 'array', items: { type: 'string' } }, template] })).toBe('list');
    expect(kindOf({ type: 'string', enum: ['>', '<'] })).toBe('enum');
    expect(kindOf({ description: 'JSONPath or a literal' })).toBe('json');
    expect(kindOf({ type: 'object', additionalProperties: { type: 'string' } } as never)).toBe('json');
  });

  it('reads field text back as typed values, keeping a lone {{template}} a string', () => {
    expect(fromText('number', '500')).toBe(500);
    expect(fromText('number', '{{limit}}')).toBe('{{limit}}');
    expect(fromText('list', 'a@x.com, b@x.com ,')).toEqual(['a@x.com', 'b@x.com']);
    expect(fromText('list', '{{recipients}}')).toBe('{{recipients}}');
    expect(fromText('json', '500')).toBe(500);
    expect(fromText('json', '$.amount')).toBe('$.amount');
    expect(fromText('json', '{"a":1}')).toEqual({ a: 1 });
    expect(fromText('boolean', true)).toBe(true);
    expect(fromText('string', '  ')).toBeUndefined();
    expect(fromText('string', ' keep spaces ')).toBe(' keep spaces ');
  });

  it('shows values as field text, and fills in schema defaults without overwriting given values', () => {
    expect(toText('list', ['a', 'b'])).toBe('a, b');
    expect(toText('json', 500)).toBe('500');
    expect(toText('boolean', undefined)).toBe(false);
    expect(schemaDefaults({ properties: { a: { default: 1 }, b: { default: 2 }, c: {} } }, { b: 5 })).toEqual({ a: 1, b: 5 });
  });
});
