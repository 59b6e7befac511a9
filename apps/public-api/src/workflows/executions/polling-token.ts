import { createHmac } from 'node:crypto';
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

/** The JOSE header jsonwebtoken writes for HS256, base64url-encoded once. */
const HS256_HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');

/**
 * Signs a polling token: the same compact HS256 JWS, header and claims that
 * `jwt.sign({ uid }, key, { algorithm: 'HS256', subject, issuer, audience,
 * expiresIn })` writes (`uid`, `iat`, `exp`, `aud`, `iss`, `sub`), written
 * directly: every accepted webhook trigger signs one on its answer, and
 * jsonwebtoken's option checks cost about three times the HMAC itself
 * (docs/decisions.md, "Throughput: the webhook tail"). Verified by
 * `verifyPollingToken` (jsonwebtoken) as before.
 */
export function signPollingToken(grant: PollingGrant, secret: string, ttlSeconds = POLLING_TOKEN_TTL_SECONDS): string {
  if (!Number.isSafeInteger(grant.userId) || !Number.isSafeInteger(grant.executionId)) throw new Error('a polling token names integer ids');
  const iat = Math.floor(Date.now() / 1000);
  const claims = { uid: grant.userId, iat, exp: iat + ttlSeconds, aud: POLLING_TOKEN_AUDIENCE, iss: POLLING_TOKEN_ISSUER, sub: String(grant.executionId) };
  const signingInput = `${HS256_HEADER}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  return `${signingInput}.${createHmac('sha256', hmacKey(secret)).update(signingInput).digest('base64url')}`;
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

/** Tokens peeked at most (then the oldest is forgotten): a peek is a pure function of the token string. */
const PEEK_CACHE_MAX = 10_000;
const PEEK_TOKEN_MAX = 2048;
const peeked = new Map<string, boolean>();

/**
 * Whether a bearer token claims to be a polling token (unverified peek, to
 * pick the right check). Every status read asks this of its token, and a
 * client sends the same token again and again, so the answer is remembered
 * per exact token string (it depends on nothing else; nothing is trusted
 * from it, the chosen check verifies the token in full).
 */
export function looksLikePollingToken(token: string): boolean {
  const known = peeked.get(token);
  if (known !== undefined) return known;
  const decoded = jwt.decode(token);
  const polling = typeof decoded === 'object' && decoded !== null && decoded.iss === POLLING_TOKEN_ISSUER;
  // Bounded memory whatever clients send: at most PEEK_CACHE_MAX tokens of at most PEEK_TOKEN_MAX characters.
  if (token.length <= PEEK_TOKEN_MAX) {
    if (peeked.size >= PEEK_CACHE_MAX) peeked.delete(peeked.keys().next().value as string);
    peeked.set(token, polling);
  }
  return polling;
}
