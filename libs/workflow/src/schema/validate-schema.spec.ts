import { formatSchemaErrors, renderPath } from './format-errors';
import { jsonSchemaProblem, MISSING_INPUT_SCHEMA_MESSAGE, validateAgainstSchema, validateInputs } from './validate-schema';
import { compileSchema } from './compile';

const invoiceSchema = {
  type: 'object',
  properties: {
    amount: { type: 'number', minimum: 0 },
    currency: { type: 'string', enum: ['EUR', 'USD'] },
    email: { type: 'string', format: 'email' },
    items: { type: 'array', items: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] } },
  },
  required: ['amount', 'currency'],
  additionalProperties: false,
};

describe('validateInputs', () => {
  it('accepts valid inputs', () => {
    expect(validateInputs(invoiceSchema, { amount: 10, currency: 'EUR', items: [{ id: 1 }] })).toEqual([]);
  });

  it('lists every problem with readable paths', () => {
    expect(validateInputs(invoiceSchema, { amount: 'ten', email: 'not-an-email', items: [{ id: 1 }, {}, { id: 'x' }], extra: 1 })).toEqual([
      'inputs.currency is required',
      'inputs.extra is not an allowed field',
      'inputs.amount must be number',
      'inputs.email must be a valid email',
      'inputs.items[1].id is required',
      'inputs.items[2].id must be integer',
    ]);
    expect(validateInputs(invoiceSchema, { amount: -1, currency: 'GBP' })).toEqual(['inputs.amount must be >= 0', 'inputs.currency must be one of EUR, USD']);
  });

  it('treats missing inputs as an empty object and a missing schema as an error', () => {
    expect(validateInputs({ type: 'object' }, undefined)).toEqual([]);
    expect(validateInputs({ type: 'object', required: ['a'] }, undefined)).toEqual(['inputs.a is required']);
    expect(validateInputs(undefined, { a: 1 })).toEqual([MISSING_INPUT_SCHEMA_MESSAGE]);
    expect(validateInputs(null, {})).toEqual([MISSING_INPUT_SCHEMA_MESSAGE]);
  });

  it('reports a non-object inputs value', () => {
    expect(validateInputs({ type: 'object' }, [1])).toEqual(['inputs must be object']);
  });

  it('supports 2019-09 and 2020-12 schemas', () => {
    const s2020 = { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: { tags: { type: 'array', prefixItems: [{ type: 'string' }] } } };
    expect(validateInputs(s2020, { tags: [5] })).toEqual(['inputs.tags[0] must be string']);
    const s2019 = { $schema: 'https://json-schema.org/draft/2019-09/schema', type: 'object', dependentRequired: { a: ['b'] } };
    expect(validateInputs(s2019, { a: 1 })).toEqual(['inputs must have property b when property a is present']);
  });
});

describe('validateAgainstSchema', () => {
  it('uses the label for the resume payload', () => {
    const schema = { type: 'object', properties: { approved: { type: 'boolean' } }, required: ['approved'] };
    expect(validateAgainstSchema(schema, { approved: 'yes' }, 'payload')).toEqual(['payload.approved must be boolean']);
    expect(validateAgainstSchema(schema, {}, 'payload')).toEqual(['payload.approved is required']);
  });

  it('explains an unusable schema instead of throwing', () => {
    expect(validateAgainstSchema('nope', {}, 'payload')).toEqual(['The schema for payload is not a valid JSON Schema: must be a JSON Schema object']);
    expect(validateAgainstSchema({ type: 'object', properties: { a: { $ref: '#/nowhere' } } }, {}, 'payload')[0]).toMatch(
      /^The schema for payload is not a valid JSON Schema: can't resolve reference #\/nowhere/,
    );
  });

  it('accepts boolean schemas', () => {
    expect(validateAgainstSchema(true, { anything: 1 }, 'payload')).toEqual([]);
    expect(validateAgainstSchema(false, {}, 'payload')).toEqual(['payload must NOT be valid']);
  });

  it('compiles two different schemas with the same $id', () => {
    const a = { $id: 'https://x.test/s', type: 'object', required: ['a'] };
    const b = { $id: 'https://x.test/s', type: 'object', required: ['b'] };
    expect(validateAgainstSchema(a, {}, 'v')).toEqual(['v.a is required']);
    expect(validateAgainstSchema(b, {}, 'v')).toEqual(['v.b is required']);
    expect(validateAgainstSchema(a, {}, 'v')).toEqual(['v.a is required']);
  });

  it('collapses oneOf failures', () => {
    const schema = { oneOf: [{ type: 'string' }, { type: 'integer' }, { type: 'number' }] };
    expect(validateAgainstSchema(schema, 3, 'v')).toEqual(['v must match exactly one of the allowed forms']);
    expect(validateAgainstSchema(schema, true, 'v')).toEqual(['v must be string or integer or number']);
  });

  it('reports errors of anyOf items at their own index', () => {
    const schema = { type: 'array', items: { anyOf: [{ type: 'string', minLength: 2 }, { type: 'integer' }] } };
    expect(validateAgainstSchema(schema, ['ok', 'x', true, ...Array(8).fill(1), 'y'], 'list')).toEqual([
      'list[1] must NOT have fewer than 2 characters',
      'list[2] must be string or integer',
      'list[11] must NOT have fewer than 2 characters',
    ]);
  });
});

describe('patterns in user schemas (linear-time engine)', () => {
  const adversarial = `${'1'.repeat(48)}!`;

  it('answers a catastrophic pattern and patternProperties on an adversarial input', () => {
    const schema = { type: 'object', properties: { code: { type: 'string', pattern: '^(\\w|\\d)+$' } } };
    expect(validateAgainstSchema(schema, { code: adversarial }, 'inputs')).toEqual(['inputs.code must match pattern ^(\\w|\\d)+$']);
    expect(validateAgainstSchema(schema, { code: '1'.repeat(48) }, 'inputs')).toEqual([]);
    const keyed = { type: 'object', patternProperties: { '^\\d*\\d*\\d*\\d*\\d*$': { type: 'integer' } }, additionalProperties: false };
    expect(validateAgainstSchema(keyed, { [adversarial]: 1 }, 'inputs')).toEqual([`inputs.${adversarial} is not an allowed field`]);
    expect(validateAgainstSchema(keyed, { '123': 'x' }, 'inputs')).toEqual(['inputs[123] must be integer']);
  });

  it('keeps named groups and flags-free JavaScript syntax, and tells patterns of different schemas apart', () => {
    expect(validateAgainstSchema({ type: 'string', pattern: '^(?<y>\\d{4})$' }, '2024', 'v')).toEqual([]);
    expect(validateAgainstSchema({ type: 'string', pattern: '^a$' }, 'b', 'v')).toEqual(['v must match pattern ^a$']);
    expect(validateAgainstSchema({ type: 'string', pattern: '^b$' }, 'b', 'v')).toEqual([]);
  });

  it('refuses a schema whose pattern the engine cannot run, saying why', () => {
    expect(jsonSchemaProblem({ type: 'string', pattern: '^(?=a)a$' })).toMatch(/^The pattern "\^\(\?=a\)a\$" is not supported by the linear-time engine \(no lookaround or backreferences\)/);
    expect(jsonSchemaProblem({ type: 'object', patternProperties: { '(a)\\1': { type: 'integer' } } })).toMatch(/not supported by the linear-time engine/);
  });
});

describe('jsonSchemaProblem', () => {
  it('is undefined for good schemas and names the problem otherwise', () => {
    expect(jsonSchemaProblem({ type: 'object' })).toBeUndefined();
    expect(jsonSchemaProblem({ type: 'object', minProperties: -1 })).toMatch(/minProperties must be >= 0/);
    expect(jsonSchemaProblem({ $schema: 7 })).toBe('$schema must be a string');
    const circular: Record<string, unknown> = { type: 'object' };
    circular['self'] = circular;
    expect(jsonSchemaProblem(circular)).toBe('must be JSON-serialisable');
  });
});

describe('renderPath and formatSchemaErrors', () => {
  it('renders JSON pointers as dotted paths with indices', () => {
    expect(renderPath('inputs', '')).toBe('inputs');
    expect(renderPath('inputs', '/a/0/b~1c/d~0e')).toBe('inputs.a[0].b/c.d~e');
  });

  it('handles no errors', () => {
    expect(formatSchemaErrors(null, 'x')).toEqual([]);
  });

  it('keeps a schema used all along while hundreds of others pass through the cache (least recently used go first)', () => {
    const hot = { type: 'object', properties: { hot: { type: 'string', minLength: 3 } } };
    const first = compileSchema(hot);
    if (!('validate' in first)) throw new Error('hot schema did not compile');
    for (let i = 0; i < 600; i++) {
      expect('validate' in compileSchema({ type: 'object', properties: { [`cold_${i}`]: { type: 'integer' } } })).toBe(true);
      expect(compileSchema(hot)).toEqual({ validate: first.validate });
    }
  });
});
