import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

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

/** A key's id: 16 hex characters of a hash of the key, so a sealed value names the key that opens it without revealing it. */
export function credentialsKeyId(key: Buffer): string {
  return createHash('sha256').update('docflow-credentials-key-id:').update(key).digest('hex').slice(0, 16);
}

/** The record a sealed value belongs to; it is authenticated with the value (AES-GCM associated data). */
export interface SealBinding {
  credentialId: number;
  ownerId: number;
}

interface MasterKey {
  id: string;
  key: Buffer;
}

function masterKey(value: string): MasterKey {
  const key = credentialsKey(value);
  return { id: credentialsKeyId(key), key };
}

function v2Aad(keyId: string, binding: SealBinding): Buffer {
  return Buffer.from(`docflow-credential:v2:key=${keyId}:credential=${binding.credentialId}:owner=${binding.ownerId}`);
}

/** The format of 2025: AAD of the owner alone, no key id. Read (and re-sealed by rotation), never written. */
function v1Aad(ownerId: number): Buffer {
  return Buffer.from(`credential-owner:${ownerId}`);
}

function encrypt(key: Buffer, aad: Buffer, plain: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(aad);
  const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64url');
}

function decrypt(key: Buffer, aad: Buffer, body: string): string {
  const raw = Buffer.from(body, 'base64url');
  if (raw.length < IV_BYTES + TAG_BYTES) throw new Error('credential: sealed value too short');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
  decipher.setAAD(aad);
  decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
}

/**
 * Seals a credential's fields with AES-256-GCM under CREDENTIALS_MASTER_KEY.
 * Format `v2.<key id>.<base64url(iv | tag | ciphertext)>`; the associated data
 * binds the key id, the credential's id and its owner's id, so a sealed value
 * copied to another row (another credential, another user) does not open.
 *
 * Rotation: values sealed under CREDENTIALS_MASTER_KEY_PREVIOUS (named by their
 * key id) still open until `npm run credentials:rotate-key` has re-sealed them
 * under the current key (`needsReseal`). Values of the earlier `v1` format
 * (owner-only AAD) open with either key and are re-sealed the same way.
 */
export class CredentialSealer {
  private readonly current: MasterKey;
  private readonly readable: MasterKey[];

  constructor(masterKey_: string, previousMasterKey?: string) {
    this.current = masterKey(masterKey_);
    this.readable = [this.current, ...(previousMasterKey ? [masterKey(previousMasterKey)] : [])].filter((k, i, all) => all.findIndex((o) => o.id === k.id) === i);
  }

  /** The id of the key new values are sealed with. */
  get keyId(): string {
    return this.current.id;
  }

  seal(fields: Readonly<Record<string, string>>, binding: SealBinding): string {
    return `v2.${this.current.id}.${encrypt(this.current.key, v2Aad(this.current.id, binding), JSON.stringify(fields))}`;
  }

  /** The fields; throws when the value was not sealed by a known key for this credential and owner. */
  open(sealed: string, binding: SealBinding): Record<string, string> {
    const parts = sealed.split('.');
    if (parts[0] === 'v2' && parts.length === 3) {
      const keyId = parts[1]!;
      const key = this.readable.find((k) => k.id === keyId);
      if (!key) throw new Error(`credential: sealed under key ${keyId}, which is neither CREDENTIALS_MASTER_KEY nor CREDENTIALS_MASTER_KEY_PREVIOUS`);
      return JSON.parse(decrypt(key.key, v2Aad(keyId, binding), parts[2]!)) as Record<string, string>;
    }
    if (parts[0] === 'v1' && parts.length === 2) {
      for (const key of this.readable) {
        try {
          return JSON.parse(decrypt(key.key, v1Aad(binding.ownerId), parts[1]!)) as Record<string, string>;
        } catch {
          // try the next key
        }
      }
      throw new Error('credential: the value does not open with any configured key');
    }
    throw new Error('credential: unknown sealing format');
  }

  /** Whether a value is in another format or under another key than the current one (rotation re-seals it). */
  needsReseal(sealed: string): boolean {
    return !sealed.startsWith(`v2.${this.current.id}.`);
  }
}
