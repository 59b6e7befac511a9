import { createHash, randomBytes } from 'node:crypto';
import { safeEqual } from '@docflow/internal-auth';

/**
 * Keys that let callers without an account reach one resource (a chatbot's
 * `X-Chatbot-Key`, an agent's `X-Agent-Key`): random, shown once, kept only
 * as their SHA-256, compared in constant time.
 */
export function newApiKey(prefix: string): string {
  return `${prefix}_${randomBytes(32).toString('base64url')}`;
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

export function apiKeyMatches(presented: string | undefined, storedHash: string): boolean {
  if (presented === undefined || presented === '') return false;
  return safeEqual(sha256Hex(presented), storedHash.trim());
}
