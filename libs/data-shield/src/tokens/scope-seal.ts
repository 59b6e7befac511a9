import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const PREFIX = 'dss1.';

export class InvalidScopeError extends Error {
  override readonly name = 'InvalidScopeError';
}

/**
 * Seals a scope's reverse map into the opaque handle the caller keeps for
 * the length of its request (AES-256-GCM under a key derived from a secret
 * every gateway replica shares). The gateway keeps no state: any replica can
 * restore, nothing is stored, and the map is gone when the caller drops the
 * handle at the end of its request (spec 4.17 rule 1). Handles expire.
 */
export class ScopeSealer {
  private readonly key: Buffer;

  constructor(
    secret: string,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.key = Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), Buffer.alloc(0), Buffer.from('docflow data-shield scope v1'), 32));
  }

  seal(entries: [string, string][]): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(JSON.stringify({ exp: this.now() + this.ttlMs, e: entries }), 'utf8'), cipher.final()]);
    return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
  }

  open(handle: string): [string, string][] {
    if (typeof handle !== 'string' || !handle.startsWith(PREFIX)) throw new InvalidScopeError('unknown scope');
    const raw = Buffer.from(handle.slice(PREFIX.length), 'base64url');
    if (raw.length < 29) throw new InvalidScopeError('unknown scope');
    let plain: string;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(12, 28));
      plain = Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    } catch {
      throw new InvalidScopeError('unknown scope');
    }
    const parsed = JSON.parse(plain) as { exp: number; e: [string, string][] };
    if (parsed.exp < this.now()) throw new InvalidScopeError('the scope has expired');
    return parsed.e;
  }
}
