import { redactSecrets } from './logger';

describe('redactSecrets', () => {
  it('replaces secret-looking keys at any depth and keeps the rest', () => {
    const out = redactSecrets({
      user: 'alice',
      password: 'Alice#Pass123',
      nested: { apiKey: 'k', headers: { Authorization: 'Bearer x' }, list: [{ token: 't', ok: 1 }] },
    });
    expect(out).toEqual({
      user: 'alice',
      password: '[redacted]',
      nested: { apiKey: '[redacted]', headers: { Authorization: '[redacted]' }, list: [{ token: '[redacted]', ok: 1 }] },
    });
  });
});
