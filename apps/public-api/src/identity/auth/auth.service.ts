import { BadRequestError } from '@docflow/service-kit';
import { dummyPasswordHash, verifyPassword } from '../users/password';
import { PublicUser, toPublicUser, UsersService } from '../users/users.service';
import type { AuthEvents } from './auth-events';
import type { LoginThrottle } from './login-throttle';
import type { AuthUser } from './auth-user';
import type { PrincipalCache } from './principal-cache';
import type { RevokedTokensRepository } from './revoked-tokens.repository';
import type { StepUpService } from './step-up.service';
import { signAccessToken } from './tokens';

export const INVALID_CREDENTIALS = 'Invalid identifier or password';

export interface AuthServiceDeps {
  users: UsersService;
  revocations: RevokedTokensRepository;
  /** Forgotten here at once on logout; other replicas forget on the database's notification. */
  principals: PrincipalCache;
  stepUp: StepUpService;
  events: AuthEvents;
  throttle: LoginThrottle;
  jwtSecret: string;
  jwtExpiresInSeconds: number;
}

export class AuthService {
  constructor(private readonly deps: AuthServiceDeps) {}

  /**
   * POST /auth/local. Unknown identifier and wrong password give the same
   * answer after the same amount of bcrypt work; failures are throttled per
   * account and per client `address` (LoginThrottle), and only a successful
   * login leaves the counters as they were.
   */
  async login(identifier: string, password: string, address: string): Promise<{ jwt: string; user: PublicUser }> {
    const { users, events } = this.deps;
    const user = await users.findByIdentifier(identifier);
    const release = await this.deps.throttle.reserve({ userId: user?.id, identifier, address });
    let matches: boolean;
    try {
      matches = await verifyPassword(password, user?.passwordHash ?? (await dummyPasswordHash()));
    } catch (err) {
      // Not checked (the hashing pool is full): not a failure of this account or address.
      await release();
      throw err;
    }
    if (!user || !matches) {
      events.audited('login_failed', 'auth.login.failed', user?.id, { reason: user ? 'wrong_password' : 'unknown_identifier' });
      throw BadRequestError.withErrors(INVALID_CREDENTIALS, [INVALID_CREDENTIALS]);
    }
    if (user.blocked) {
      events.audited('login_failed', 'auth.login.failed', user.id, { reason: 'blocked' });
      throw BadRequestError.withErrors('Your account has been blocked', ['account is blocked']);
    }
    await release();
    const signed = signAccessToken(user, { secret: this.deps.jwtSecret, expiresInSeconds: this.deps.jwtExpiresInSeconds });
    events.audited('login_succeeded', 'auth.login', user.id, { jti: signed.jti });
    return { jwt: signed.token, user: toPublicUser(user) };
  }

  /** POST /auth/logout: the presented token is refused from now on, by every replica and after restarts. */
  async logout(user: AuthUser): Promise<void> {
    await this.deps.revocations.revoke(user.jti, user.id, new Date(user.exp * 1000));
    this.deps.principals.invalidateUser(user.id);
    await this.deps.stepUp.revokeGrant(user);
    this.deps.events.audited('logout', 'auth.logout', user.id, { jti: user.jti });
  }

  /** POST /auth/logout-all: every token of the user issued until now is refused, by every replica and after restarts. */
  async logoutAll(user: AuthUser): Promise<void> {
    await this.deps.revocations.revokeAll(user.id);
    this.deps.principals.invalidateUser(user.id);
    await this.deps.stepUp.revokeGrant(user);
    this.deps.events.audited('logout', 'auth.logout_all', user.id, {});
  }
}
