import { hmacKey } from '@docflow/internal-auth';
import type { Request } from 'express';
import { ExtractJwt, Strategy as JwtStrategy, VerifiedCallback } from 'passport-jwt';
import type { AuthUser } from './auth-user';
import type { PrincipalCache } from './principal-cache';
import type { RevokedTokensRepository } from './revoked-tokens.repository';
import { claimsOf, JWT_ALGORITHM, JWT_ISSUER } from './tokens';
import { VerifiedTokens } from './verified-tokens';

export interface JwtStrategyDeps {
  secret: string;
  revocations: RevokedTokensRepository;
  /** Principals kept between requests while their changes are being listened to. */
  principals: PrincipalCache;
}

/** Why a correctly signed token is still refused; passed to passport as `info.message`. */
export type TokenRejection = 'Malformed token claims' | 'Token has been revoked' | 'User not found' | 'User is blocked';

/** The caller a verified token's payload stands for, or why it is refused. */
export async function resolveUser(payload: unknown, deps: JwtStrategyDeps): Promise<AuthUser | TokenRejection> {
  const claims = claimsOf(payload);
  if (!claims) return 'Malformed token claims';
  const userId = Number(claims.sub);
  const user = await deps.principals.lookup(userId, claims.jti, () => deps.revocations.principal(userId, claims.jti, claims.tv));
  if (user?.revoked) return 'Token has been revoked';
  if (!user) return 'User not found';
  if (user.blocked) return 'User is blocked';
  return { id: user.id, username: user.username, email: user.email, role: user.role, jti: claims.jti, exp: claims.exp };
}

const bearerOf = ExtractJwt.fromAuthHeaderAsBearerToken();

export interface JwtAuthentication {
  /** The passport-jwt strategy: verifies a token in full, then resolves its user (and remembers the verified token). */
  strategy: JwtStrategy;
  /**
   * For a request whose bearer token verified before and has not expired:
   * its user resolved as the strategy would (undefined otherwise, and then
   * passport verifies the token).
   */
  fromVerifiedToken(req: Request): Promise<AuthUser | TokenRejection> | undefined;
}

/**
 * The passport-jwt strategy of the public API: a bearer token signed with
 * HS256 only, issued by us, unexpired, not revoked, of a known user who is
 * not blocked. Tokens that passed verification are remembered (VerifiedTokens)
 * so that later requests with the same token skip the signature check; the
 * user behind it is resolved on every request.
 */
export function createJwtAuthentication(deps: JwtStrategyDeps, verified = new VerifiedTokens()): JwtAuthentication {
  const strategy = new JwtStrategy(
    {
      jwtFromRequest: bearerOf,
      // A key object, not the string: see hmacKey. passport-jwt hands it to jsonwebtoken as is.
      secretOrKey: hmacKey(deps.secret) as unknown as string,
      algorithms: [JWT_ALGORITHM],
      issuer: JWT_ISSUER,
      passReqToCallback: true,
    },
    (req: Request, payload: unknown, done: VerifiedCallback) => {
      const token = bearerOf(req);
      const claims = claimsOf(payload);
      if (token && claims) verified.add(token, payload as Record<string, unknown>, claims.exp);
      resolveUser(payload, deps).then(
        (result) => (typeof result === 'string' ? done(null, false, { message: result }) : done(null, result)),
        (err: unknown) => done(err),
      );
    },
  );
  return {
    strategy,
    fromVerifiedToken(req) {
      const token = bearerOf(req);
      const payload = token ? verified.get(token) : undefined;
      return payload ? resolveUser(payload, deps) : undefined;
    },
  };
}
