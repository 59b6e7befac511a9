import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import { safeEqual } from '@docflow/internal-auth';

/**
 * The correlation token of a paused execution is a bearer secret: whoever has
 * it (and the owner's access) may resume. The database keeps its SHA-256 for
 * the constant-time check on resume, and a copy sealed with AES-256-GCM (key
 * derived from JWT_SECRET with HKDF, bound to the execution id) because GET
 * /status must hand it to the owner while the execution waits. Both are
 * cleared in the same UPDATE that resumes the execution. The token never goes
 * into a log line.
 */
export function hashCorrelationToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Constant-time comparison of a presented token with the stored hash. */
export function correlationTokenMatches(presented: string, storedHash: string | null): boolean {
  if (storedHash === null) return false;
  return safeEqual(hashCorrelationToken(presented), storedHash.trim());
}

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class CorrelationTokenSealer {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = Buffer.from(hkdfSync('sha256', secret, 'docflow-correlation-token', 'docflow/correlation-token/v1', 32));
  }

  /** `v1.<base64url(iv | tag | ciphertext)>`, authenticated together with the execution id. */
  seal(token: string, executionId: number): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(`execution:${executionId}`));
    const ciphertext = Buffer.concat([cipher.update(token, 'utf8'), cipher.final()]);
    return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64url')}`;
  }

  /** The token, or undefined when the value was not sealed by this key for this execution. */
  open(sealed: string, executionId: number): string | undefined {
    const [version, body] = sealed.split('.', 2);
    if (version !== VERSION || !body) return undefined;
    const raw = Buffer.from(body, 'base64url');
    if (raw.length < IV_BYTES + TAG_BYTES) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(`execution:${executionId}`));
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      return undefined;
    }
  }
}
