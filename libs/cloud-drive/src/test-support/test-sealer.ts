import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { DriveTokenSealer } from '../google/grant-store';

/** AES-256-GCM bound to the owner id, as the public API's CredentialSealer does it (which lives in the app, out of a lib's reach). */
export class TestSealer implements DriveTokenSealer {
  private readonly key = randomBytes(32);

  seal(fields: Readonly<Record<string, string>>, ownerId: number): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(`owner:${ownerId}`));
    const body = Buffer.concat([cipher.update(JSON.stringify(fields), 'utf8'), cipher.final()]);
    return `v1.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
  }

  open(sealed: string, ownerId: number): Record<string, string> {
    const raw = Buffer.from(sealed.slice(3), 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(`owner:${ownerId}`));
    decipher.setAuthTag(raw.subarray(12, 28));
    return JSON.parse(Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8')) as Record<string, string>;
  }
}
