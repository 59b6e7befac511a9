import { BadRequestError } from '@docflow/service-kit';
import { parseCreateCredential, parseUpdateCredential } from './credentials.dto';

function errorsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    if (err instanceof BadRequestError) return (err.details as { errors: string[] }).errors;
    throw err;
  }
  throw new Error('expected a BadRequestError');
}

describe('parseCreateCredential', () => {
  it('reads the wrapped and the flat body alike', () => {
    const body = { name: ' Stripe ', provider: 'stripe', description: 'live key', fields: { api_key: 'sk_live_1', 'account.id': 'acct_9' } };
    const expected = { name: 'Stripe', provider: 'stripe', description: 'live key', fields: { api_key: 'sk_live_1', 'account.id': 'acct_9' } };
    expect(parseCreateCredential({ data: body })).toEqual(expected);
    expect(parseCreateCredential(body)).toEqual(expected);
  });

  it('names every missing or wrong field, and never echoes a secret value', () => {
    expect(errorsOf(() => parseCreateCredential({ data: {} }))).toEqual(['name: is required', 'provider: is required', 'fields: is required']);
    const errors = errorsOf(() => parseCreateCredential({ data: { name: 5, provider: 'x', fields: { ok: 'sk-do-not-echo', 'bad key': 'v', n: 42 } } }));
    expect(errors).toEqual(['name: must be a string', 'fields: "bad key" is not a valid field name (letters, digits, _ . -, starting with a letter or _)', 'fields.n: must be a string']);
    expect(JSON.stringify(errors)).not.toContain('sk-do-not-echo');
    expect(errorsOf(() => parseCreateCredential({ name: 'a', provider: 'b', fields: {} }))).toEqual(['fields: give at least one field']);
    expect(errorsOf(() => parseCreateCredential({ name: 'a', provider: 'b', fields: ['x'] }))).toEqual(['fields: must be an object of field names to string values']);
  });
});

describe('parseUpdateCredential', () => {
  it('takes any subset, and refuses a body that changes nothing', () => {
    expect(parseUpdateCredential({ data: { description: null } })).toEqual({ description: null });
    expect(parseUpdateCredential({ fields: { token: 't2' } })).toEqual({ fields: { token: 't2' } });
    expect(errorsOf(() => parseUpdateCredential({ data: { unknown: 1 } }))).toEqual(['give at least one of name, provider, description, fields']);
    expect(errorsOf(() => parseUpdateCredential({ data: { name: null } }))).toEqual(['name: must not be empty']);
  });
});
