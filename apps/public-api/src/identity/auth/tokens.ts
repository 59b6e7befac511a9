import { hmacKey, PUBLIC_API_TOKEN_ISSUER } from '@docflow/internal-auth';
import jwt from 'jsonwebtoken';
import { randomUUID } from 'node:crypto';
import { isUserRole, UserRole } from '../users/user-role';

/** Pinned on sign and on verify: a token in any other algorithm (`none`, HS512, RS256) is refused. */
export const JWT_ALGORITHM = 'HS256' as const;
/** Service-token checks refuse tokens of this issuer (see verifyServiceToken). */
export const JWT_ISSUER = PUBLIC_API_TOKEN_ISSUER;

export interface AccessTokenClaims {
  /** The user id, as a string (RFC 7519). */
  sub: string;
  jti: string;
  role: UserRole;
  iat: number;
  exp: number;
  iss: string;
  /** The user's token version when the token was issued (0 for tokens issued before versions existed). */
  tv: number;
}

export interface SignedAccessToken {
  token: string;
  jti: string;
  /** Seconds since the epoch. */
  exp: number;
}

export interface TokenSigningOptions {
  secret: string;
  expiresInSeconds: number;
}

/** Signs the access token returned by POST /auth/local. */
export function signAccessToken(user: { id: number; role: UserRole; tokenVersion?: number }, options: TokenSigningOptions): SignedAccessToken {
  const jti = randomUUID();
  const iat = Math.floor(Date.now() / 1000);
  const exp = iat + options.expiresInSeconds;
  const token = jwt.sign({ role: user.role, iat, exp, tv: user.tokenVersion ?? 0 }, hmacKey(options.secret), { algorithm: JWT_ALGORITHM, subject: String(user.id), jwtid: jti, issuer: JWT_ISSUER });
  return { token, jti, exp };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The claims of an already verified payload, or undefined when it lacks one we rely on. */
export function claimsOf(payload: unknown): AccessTokenClaims | undefined {
  if (payload === null || typeof payload !== 'object') return undefined;
  const p = payload as Record<string, unknown>;
  const { sub, jti, role, iat, exp, iss, tv = 0 } = p;
  if (typeof sub !== 'string' || !/^[1-9]\d{0,9}$/.test(sub)) return undefined;
  if (typeof jti !== 'string' || !UUID.test(jti)) return undefined;
  if (!isUserRole(role) || typeof exp !== 'number' || typeof iat !== 'number' || typeof iss !== 'string') return undefined;
  if (typeof tv !== 'number' || !Number.isSafeInteger(tv) || tv < 0) return undefined;
  return { sub, jti, role, iat, exp, iss, tv };
}
