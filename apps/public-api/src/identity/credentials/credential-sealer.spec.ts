import { CredentialSealer, credentialsKey } from './credential-sealer';

const KEY = 'ab'.repeat(32);

describe('CredentialSealer', () => {
  it('opens what it sealed, and never holds the values in clear', () => {
    const sealer = new CredentialSealer(KEY);
    const sealed = sealer.seal({ api_key: 'sk-secret-value', user: 'svc' }, 7);
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain('sk-secret-value');
    expect(Buffer.from(sealed.slice(3), 'base64url').toString('latin1')).not.toContain('sk-secret');
    expect(sealer.open(sealed, 7)).toEqual({ api_key: 'sk-secret-value', user: 'svc' });
  });

  it('seals the same fields differently each time (random IV)', () => {
    const sealer = new CredentialSealer(KEY);
    expect(sealer.seal({ a: 'b' }, 1)).not.toBe(sealer.seal({ a: 'b' }, 1));
  });

  it('refuses another owner, another key and an altered value', () => {
    const sealed = new CredentialSealer(KEY).seal({ a: 'b' }, 1);
    expect(() => new CredentialSealer(KEY).open(sealed, 2)).toThrow();
    expect(() => new CredentialSealer('cd'.repeat(32)).open(sealed, 1)).toThrow();
    const raw = Buffer.from(sealed.slice(3), 'base64url');
    raw[raw.length - 1] = (raw[raw.length - 1] ?? 0) ^ 1;
    expect(() => new CredentialSealer(KEY).open(`v1.${raw.toString('base64url')}`, 1)).toThrow();
    expect(() => new CredentialSealer(KEY).open('v2.abc', 1)).toThrow(/format/);
  });

  it('takes the 64 hex characters of the master key as its 32 bytes', () => {
    expect(credentialsKey(KEY)).toEqual(Buffer.from(KEY, 'hex'));
    expect(credentialsKey('dev-only-credentials_master_key-change-me')).toHaveLength(32);
  });
});
