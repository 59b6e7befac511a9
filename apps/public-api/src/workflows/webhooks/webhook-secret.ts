import { randomBytes } from 'node:crypto';
import { safeEqual } from '@docflow/internal-auth';
import { sha256Hex } from '../../platform';

/** A new webhook secret: 32 random bytes as 64 hex characters (spec 2.14). */
export function newWebhookSecret(): string {
  return randomBytes(32).toString('hex');
}

export const hashWebhookSecret = sha256Hex;

/**
 * Whether `presented` is the current secret, or the previous one while its
 * grace window lasts (spec 5). Both comparisons always run, in constant time
 * over equal-length hashes (spec 4.9 rule 2).
 */
export function webhookSecretMatches(presented: string, stored: { secretHash: string; previousSecretHash: string | null; previousSecretExpiresAt: Date | null }, now: Date = new Date()): boolean {
  const hash = hashWebhookSecret(presented);
  const current = safeEqual(hash, stored.secretHash.trim());
  const previous = stored.previousSecretHash !== null && safeEqual(hash, stored.previousSecretHash.trim());
  const previousLive = stored.previousSecretExpiresAt !== null && stored.previousSecretExpiresAt.getTime() > now.getTime();
  return current || (previous && previousLive);
}
