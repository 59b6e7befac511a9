import { createCipheriv, randomBytes } from 'node:crypto';
import { CredentialSealer, credentialsKey, credentialsKeyId } from './credential-sealer';

const KEY = 'ab'.repeat(32);
const NEW_KEY = 'cd'.repeat(32);
const ALICE_7 = { credentialId: 7, ownerId: 1 };

/** A value in the earlier `v1` format (owner-only AAD), as rows written before key ids hold them. */
function legacySeal(key: string, fields: Record<string, string>, ownerId: number): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', credentialsKey(key), iv);
  cipher.setAAD(Buffer.from(`credential-owner:${ownerId}`));
  const ct = Buffer.concat([cipher.update(JSON.stringify(fields), 'utf8'), cipher.final()]);
  return `v1.${Buffer.concat([iv, cipher.getAuthTag(), ct]).toString('base64url')}`;
}

describe('CredentialSealer', () => {
  it('opens what it sealed, names its key id, and never holds the values in clear', () => {
    const sealer = new CredentialSealer(KEY);
    const sealed = sealer.seal({ api_key: 'sk-secret-value', user: 'svc' }, ALICE_7);
    expect(sealed).toMatch(/^v2\.[0-9a-f]{16}\.[A-Za-z0-9_-]+$/);
    expect(sealed.split('.')[1]).toBe(credentialsKeyId(credentialsKey(KEY)));
    expect(sealer.keyId).toBe(credentialsKeyId(credentialsKey(KEY)));
    expect(sealed).not.toContain('sk-secret-value');
    expect(Buffer.from(sealed.split('.')[2]!, 'base64url').toString('latin1')).not.toContain('sk-secret');
    expect(sealer.open(sealed, ALICE_7)).toEqual({ api_key: 'sk-secret-value', user: 'svc' });
  });

  it('seals the same fields differently each time (random IV)', () => {
    const sealer = new CredentialSealer(KEY);
    expect(sealer.seal({ a: 'b' }, ALICE_7)).not.toBe(sealer.seal({ a: 'b' }, ALICE_7));
  });

  it('binds the value to the credential id and the owner: another row, owner or key does not open it', () => {
    const sealed = new CredentialSealer(KEY).seal({ a: 'b' }, ALICE_7);
    expect(() => new CredentialSealer(KEY).open(sealed, { credentialId: 8, ownerId: 1 })).toThrow();
    expect(() => new CredentialSealer(KEY).open(sealed, { credentialId: 7, ownerId: 2 })).toThrow();
    expect(() => new CredentialSealer(NEW_KEY).open(sealed, ALICE_7)).toThrow(/neither/);
  });

  it('refuses a tampered key id, ciphertext or format', () => {
    const sealer = new CredentialSealer(KEY, NEW_KEY);
    const sealed = sealer.seal({ a: 'b' }, ALICE_7);
    const [, keyId, body] = sealed.split('.');
    // The key id is authenticated too: naming the other configured key does not open it.
    expect(() => sealer.open(`v2.${credentialsKeyId(credentialsKey(NEW_KEY))}.${body}`, ALICE_7)).toThrow();
    const raw = Buffer.from(body!, 'base64url');
    raw[raw.length - 1] = (raw[raw.length - 1] ?? 0) ^ 1;
    expect(() => sealer.open(`v2.${keyId}.${raw.toString('base64url')}`, ALICE_7)).toThrow();
    expect(() => sealer.open('v3.abc', ALICE_7)).toThrow(/format/);
    expect(() => sealer.open(`v2.${keyId}.AAAA`, ALICE_7)).toThrow(/short/);
  });

  it('during a rotation opens values of the previous key and says they need re-sealing', () => {
    const old = new CredentialSealer(KEY).seal({ a: 'old' }, ALICE_7);
    const rotating = new CredentialSealer(NEW_KEY, KEY);
    expect(rotating.open(old, ALICE_7)).toEqual({ a: 'old' });
    expect(rotating.needsReseal(old)).toBe(true);
    const fresh = rotating.seal({ a: 'old' }, ALICE_7);
    expect(rotating.needsReseal(fresh)).toBe(false);
    expect(new CredentialSealer(NEW_KEY).open(fresh, ALICE_7)).toEqual({ a: 'old' });
    expect(() => new CredentialSealer(NEW_KEY).open(old, ALICE_7)).toThrow();
  });

  it('reads the earlier v1 format (owner-only AAD) with either key, for rotation to re-seal', () => {
    const legacy = legacySeal(KEY, { a: 'v1' }, 1);
    expect(new CredentialSealer(NEW_KEY, KEY).open(legacy, ALICE_7)).toEqual({ a: 'v1' });
    expect(new CredentialSealer(KEY).needsReseal(legacy)).toBe(true);
    expect(() => new CredentialSealer(KEY).open(legacy, { credentialId: 7, ownerId: 2 })).toThrow(/any configured key/);
  });

  it('takes the 64 hex characters of the master key as its 32 bytes', () => {
    expect(credentialsKey(KEY)).toEqual(Buffer.from(KEY, 'hex'));
    expect(credentialsKey('dev-only-credentials_master_key-change-me')).toHaveLength(32);
  });
});
