import { coerceFormFields } from './form-fields';

const schema = {
  type: 'object',
  properties: {
    amount: { type: 'number' },
    count: { type: 'integer' },
    urgent: { type: 'boolean' },
    tags: { type: 'array' },
    meta: { type: ['object', 'null'] },
    code: { type: 'string' },
    either: { type: ['string', 'number'] },
  },
};

describe('coerceFormFields', () => {
  it('reads fields as the types the input schema declares', () => {
    expect(coerceFormFields({ amount: '30.5', count: '7', urgent: 'true', tags: '["a","b"]', meta: '{"k":1}', code: '00123', either: '5', other: '42' }, schema)).toEqual({
      amount: 30.5,
      count: 7,
      urgent: true,
      tags: ['a', 'b'],
      meta: { k: 1 },
      code: '00123',
      either: '5',
      other: '42',
    });
  });

  it('leaves text that is not of the declared type for the schema check to refuse', () => {
    expect(coerceFormFields({ amount: 'thirty', count: '7.5', urgent: 'yes', tags: '{"not":"array"}', meta: 'null' }, schema)).toEqual({
      amount: 'thirty',
      count: '7.5',
      urgent: 'yes',
      tags: '{"not":"array"}',
      meta: null,
    });
  });

  it('passes everything through without a usable schema', () => {
    expect(coerceFormFields({ amount: '30' }, undefined)).toEqual({ amount: '30' });
  });
});
