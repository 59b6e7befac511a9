import { hmacKey } from '@docflow/internal-auth';
import { ExtractJwt, Strategy as JwtStrategy, VerifiedCallback } from 'passport-jwt';
import type { AuthUser } from './auth-user';
import type { PrincipalCache } from './principal-cache';
import type { RevokedTokensRepository } from './revoked-tokens.repository';
import { claimsOf, JWT_ALGORITHM, JWT_ISSUER } from './tokens';

export interface JwtStrategyDeps {
  secret: string;
  revocations: RevokedTokensRepository;
  /** Principals kept between requests while their changes are being listened to. */
  principals: PrincipalCache;
}

/** Why a correctly signed token is still refused; passed to passport as `info.message`. */
export type TokenRejection = 'Malformed token claims' | 'Token has been revoked' | 'User not found' | 'User is blocked';

async function resolveUser(payload: unknown, deps: JwtStrategyDeps): Promise<AuthUser | TokenRejection> {
  const claims = claimsOf(payload);
  if (!claims) return 'Malformed token claims';
  const userId = Number(claims.sub);
  const user = await deps.principals.lookup(userId, claims.jti, () => deps.revocations.principal(userId, claims.jti));
  if (user?.revoked) return 'Token has been revoked';
  if (!user) return 'User not found';
  if (user.blocked) return 'User is blocked';
  return { id: user.id, username: user.username, email: user.email, role: user.role, jti: claims.jti, exp: claims.exp };
}

/**
 * The passport-jwt strategy of the public API: a bearer token signed with
 * HS256 only, issued by us, unexpired, not revoked, of a known user who is
 * not blocked.
 */
export function createJwtStrategy(deps: JwtStrategyDeps): JwtStrategy {
  return new JwtStrategy(
    {
      jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
      // A key object, not the string: see hmacKey. passport-jwt hands it to jsonwebtoken as is.
      secretOrKey: hmacKey(deps.secret) as unknown as string,
      algorithms: [JWT_ALGORITHM],
      issuer: JWT_ISSUER,
    },
    (payload: unknown, done: VerifiedCallback) => {
      resolveUser(payload, deps).then(
        (result) => (typeof result === 'string' ? done(null, false, { message: result }) : done(null, result)),
        (err: unknown) => done(err),
      );
    },
  );
}
