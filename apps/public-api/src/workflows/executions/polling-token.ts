import { hmacKey } from '@docflow/internal-auth';
import jwt from 'jsonwebtoken';

/**
 * The short-lived polling token a webhook trigger returns (spec 4.9 rule 6,
 * 5): an HS256 JWT, signed with JWT_SECRET under an issuer of its own (so the
 * access-token strategy refuses it), valid 1 hour, good only for reading the
 * one execution it names.
 */
export const POLLING_TOKEN_ISSUER = 'docflow-polling';
export const POLLING_TOKEN_AUDIENCE = 'workflow-execution';
export const POLLING_TOKEN_TTL_SECONDS = 3600;

export interface PollingGrant {
  executionId: number;
  userId: number;
}

export function signPollingToken(grant: PollingGrant, secret: string, ttlSeconds = POLLING_TOKEN_TTL_SECONDS): string {
  return jwt.sign({ uid: grant.userId }, hmacKey(secret), {
    algorithm: 'HS256',
    subject: String(grant.executionId),
    issuer: POLLING_TOKEN_ISSUER,
    audience: POLLING_TOKEN_AUDIENCE,
    expiresIn: ttlSeconds,
  });
}

/** The grant of a valid polling token, or undefined (bad signature, expired, or not a polling token). */
export function verifyPollingToken(token: string, secret: string): PollingGrant | undefined {
  try {
    const payload = jwt.verify(token, hmacKey(secret), { algorithms: ['HS256'], issuer: POLLING_TOKEN_ISSUER, audience: POLLING_TOKEN_AUDIENCE });
    if (typeof payload !== 'object' || payload === null) return undefined;
    const executionId = Number(payload.sub);
    const userId = (payload as { uid?: unknown }).uid;
    if (!Number.isSafeInteger(executionId) || executionId < 1 || typeof userId !== 'number' || !Number.isSafeInteger(userId)) return undefined;
    return { executionId, userId };
  } catch {
    return undefined;
  }
}

/** Whether a bearer token claims to be a polling token (unverified peek, to pick the right check). */
export function looksLikePollingToken(token: string): boolean {
  const decoded = jwt.decode(token);
  return typeof decoded === 'object' && decoded !== null && decoded.iss === POLLING_TOKEN_ISSUER;
}
