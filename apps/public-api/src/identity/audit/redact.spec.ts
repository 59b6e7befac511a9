import { REDACTED, redactDetails } from './redact';

describe('redactDetails', () => {
  it('replaces the values of keys that name personal data, at any depth', () => {
    expect(redactDetails({ reason: 'wrong_password', identifier: 'alice@docflow.local', nested: { email: 'x@y.io', Password: 'p', count: 3 } })).toEqual({
      reason: 'wrong_password',
      identifier: REDACTED,
      nested: { email: REDACTED, Password: REDACTED, count: 3 },
    });
  });

  it('masks e-mail addresses, IPv4 addresses and long digit runs inside other strings', () => {
    const out = redactDetails({
      note: 'mail bob@example.com from 10.1.2.3, call +1 (555) 123-4567, card 4111 1111 1111 1111',
      ok: 'order 42 of 2026',
      at: '2026-11-26T03:40:00.000Z',
      jti: '52419a27-7c22-4a77-a012-3456789eb0d3',
    });
    expect(out).toEqual({ note: 'mail [email] from [ip], call [number], card [number]', ok: 'order 42 of 2026', at: '2026-11-26T03:40:00.000Z', jti: '52419a27-7c22-4a77-a012-3456789eb0d3' });
  });

  it('keeps a UUID whole even when its groups are all digits', () => {
    expect(redactDetails({ jti: 'bc92f0d4-1234-4567-92c7-271ac4cbb0cc' })).toEqual({ jti: 'bc92f0d4-1234-4567-92c7-271ac4cbb0cc' });
  });

  it('keeps numbers, booleans and arrays, drops functions and prototype keys, and has no details as {}', () => {
    const input = JSON.parse('{"n": 1, "b": false, "list": ["a@b.co", 2], "__proto__": {"polluted": true}}') as Record<string, unknown>;
    expect(redactDetails({ ...input, fn: () => 1 })).toEqual({ n: 1, b: false, list: ['[email]', 2] });
    expect(redactDetails(undefined)).toEqual({});
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
