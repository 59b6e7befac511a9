import { createHash } from 'node:crypto';
import { type Limit, type RateLimits, tooManyRequests } from '../../platform';
import type { AuthEvents } from './auth-events';

export interface LoginThrottleOptions {
  maxFailuresPerAccount: number;
  maxFailuresPerAddress: number;
  windowSeconds: number;
}

/** Who a login attempt counts against: the account (a user id when the identifier names one) and the client address. */
export interface LoginAttempt {
  userId: number | undefined;
  identifier: string;
  address: string;
}

type Scope = 'account' | 'address';

interface Counted {
  scope: Scope;
  key: string;
  limit: Limit;
}

/** Keys hold digests, not e-mail addresses or IPs: the counters table is not a log of who tried what. */
function digest(value: string): string {
  return createHash('sha256').update(value).digest('base64url').slice(0, 32);
}

/**
 * Failed logins are limited per account and per client address within a
 * fixed window (LOGIN_* settings), counted in the shared store so that every
 * process and replica sees the same counts. An attempt reserves a failure on
 * both counters before any bcrypt work, so parallel attempts cannot overrun
 * the limit; a successful login gives its reservation back. An attempt over
 * either limit is 429 with Retry-After (the end of that window) and costs no
 * bcrypt at all, whatever the password. Going over a limit is audited once
 * per counter and window (`auth.login.throttled`), not once per attempt.
 */
export class LoginThrottle {
  constructor(
    private readonly limits: RateLimits,
    private readonly events: AuthEvents,
    private readonly options: LoginThrottleOptions,
  ) {}

  /** Reserves one failure of each counter; throws 429 when either is over its limit. Returns the release for a successful login. */
  async reserve(attempt: LoginAttempt): Promise<() => Promise<void>> {
    const counted = this.countersOf(attempt);
    const verdicts = await Promise.all(counted.map((c) => this.limits.take(c.key, c.limit)));
    const over = counted.map((c, i) => ({ ...c, verdict: verdicts[i]! })).filter((c) => !c.verdict.allowed);
    if (over.length > 0) {
      for (const c of over) {
        if (await this.limits.store.markReported(c.key)) {
          this.events.audited(
            'login_throttled',
            'auth.login.throttled',
            c.scope === 'account' ? attempt.userId : undefined,
            { scope: c.scope, max_failures: c.limit.max, window_seconds: c.limit.windowSeconds, retry_after: c.verdict.retryAfterSeconds },
            'warn',
          );
        } else {
          this.events.record('login_throttled');
        }
      }
      const wait = over.reduce((w, c) => (c.verdict.retryAfterSeconds > w.retryAfterSeconds ? c.verdict : w), over[0]!.verdict);
      throw tooManyRequests('Too many failed logins; try again later', wait);
    }
    return async () => {
      await Promise.all(counted.map((c) => this.limits.store.release(c.key)));
    };
  }

  private countersOf(attempt: LoginAttempt): Counted[] {
    const { maxFailuresPerAccount, maxFailuresPerAddress, windowSeconds } = this.options;
    const account = attempt.userId !== undefined ? `user:${attempt.userId}` : `identifier:${digest(attempt.identifier.trim().toLowerCase())}`;
    return [
      { scope: 'account', key: `login:${account}`, limit: { max: maxFailuresPerAccount, windowSeconds } },
      { scope: 'address', key: `login:address:${digest(attempt.address)}`, limit: { max: maxFailuresPerAddress, windowSeconds } },
    ];
  }
}
