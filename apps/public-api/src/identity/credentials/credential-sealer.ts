import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * The 32-byte key of CREDENTIALS_MASTER_KEY: its 64 hex characters, as the
 * runtime contract asks. Any other value (the development default) is hashed
 * to 32 bytes; production refuses it at start (config).
 */
export function credentialsKey(masterKey: string): Buffer {
  return /^[0-9a-fA-F]{64}$/.test(masterKey) ? Buffer.from(masterKey, 'hex') : createHash('sha256').update(masterKey, 'utf8').digest();
}

/**
 * Seals a credential's fields with AES-256-GCM under the master key,
 * authenticated together with the owner's id, so a sealed value copied to
 * another user's row does not open. Format `v1.<base64url(iv | tag | ciphertext)>`.
 */
export class CredentialSealer {
  private readonly key: Buffer;

  constructor(masterKey: string) {
    this.key = credentialsKey(masterKey);
  }

  seal(fields: Readonly<Record<string, string>>, ownerId: number): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(aad(ownerId));
    const ciphertext = Buffer.concat([cipher.update(JSON.stringify(fields), 'utf8'), cipher.final()]);
    return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64url')}`;
  }

  /** The fields; throws when the value was not sealed by this key for this owner. */
  open(sealed: string, ownerId: number): Record<string, string> {
    const [version, body] = sealed.split('.', 2);
    if (version !== VERSION || !body) throw new Error('credential: unknown sealing format');
    const raw = Buffer.from(body, 'base64url');
    if (raw.length < IV_BYTES + TAG_BYTES) throw new Error('credential: sealed value too short');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, IV_BYTES));
    decipher.setAAD(aad(ownerId));
    decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    const plain = Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    return JSON.parse(plain) as Record<string, string>;
  }
}

function aad(ownerId: number): Buffer {
  return Buffer.from(`credential-owner:${ownerId}`);
}
