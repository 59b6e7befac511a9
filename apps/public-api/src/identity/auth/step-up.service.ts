import { createHmac, randomInt } from 'node:crypto';
import { safeEqual } from '@docflow/internal-auth';
import type { Mailer } from '@docflow/mail';
import { BadRequestError, errorMessage, ServiceUnavailableError } from '@docflow/service-kit';
import { type Limit, type RateLimits, tooManyRequests } from '../../platform';
import type { AuthUser } from './auth-user';
import type { AuthEvents } from './auth-events';
import type { StepUpRepository } from './step-up.repository';

export const STEP_UP_CODE_TTL_SECONDS = 600;
export const STEP_UP_GRANT_TTL_SECONDS = 300;
export const STEP_UP_MAX_ATTEMPTS = 5;
/** Wrong codes a user may enter per hour, across codes: a new code does not start the count again. */
export const STEP_UP_FAILURES: Limit = { max: STEP_UP_MAX_ATTEMPTS, windowSeconds: 3600 };
/** Code requests per user: one per 30 s and five an hour (each is a mail). */
export const STEP_UP_REQUESTS: readonly Limit[] = [
  { max: 1, windowSeconds: 30 },
  { max: 5, windowSeconds: 3600 },
];
export const STEP_UP_CODE_PATTERN = /^\d{6}$/;

/** A uniformly random 6-digit code, leading zeros kept. */
export function generateStepUpCode(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, '0');
}

/** Codes are kept only as HMAC-SHA256 keyed with the JWT secret. */
export function hashStepUpCode(code: string, secret: string): string {
  return createHmac('sha256', secret).update(`step-up:${code}`).digest('hex');
}

export interface StepUpServiceDeps {
  repo: StepUpRepository;
  mailer: Mailer;
  events: AuthEvents;
  limits: RateLimits;
  /** Key of the code HMAC (JWT_SECRET). */
  secret: string;
}

/** Step-up verification for sensitive operations (spec 3.6, 5). */
export class StepUpService {
  constructor(private readonly deps: StepUpServiceDeps) {}

  /** Mails a new code to the user; any previous code stops working. More than STEP_UP_REQUESTS allow is 429 with Retry-After, and no mail. */
  async requestCode(user: AuthUser): Promise<void> {
    const { repo, mailer, events, secret, limits } = this.deps;
    for (const limit of STEP_UP_REQUESTS) {
      const verdict = await limits.take(`step_up:request:${limit.windowSeconds}:${user.id}`, limit);
      if (!verdict.allowed) {
        events.record('step_up_throttled');
        throw tooManyRequests(`At most ${limit.max} verification code${limit.max === 1 ? '' : 's'} per ${limit.windowSeconds} seconds; try again later`, verdict);
      }
    }
    const code = generateStepUpCode();
    await repo.replaceCode(user.id, hashStepUpCode(code, secret), STEP_UP_CODE_TTL_SECONDS);
    try {
      await mailer.send({
        to: [user.email],
        subject: 'Your Docflow verification code',
        text:
          `Your Docflow verification code is ${code}.\n\n` +
          `It is valid for ${STEP_UP_CODE_TTL_SECONDS / 60} minutes and can be used once. ` +
          'If you did not ask for it, ignore this mail and consider changing your password.\n',
      });
    } catch (err) {
      await repo.deleteCode(user.id);
      events.audited('step_up_mail_failed', 'auth.step_up.mail_failed', user.id, { error: errorMessage(err) }, 'error');
      throw new ServiceUnavailableError('The verification code could not be sent; try again later', {}, 'mail_unavailable');
    }
    events.audited('step_up_requested', 'auth.step_up.requested', user.id, { expiresIn: STEP_UP_CODE_TTL_SECONDS });
  }

  /**
   * Checks a code and grants step-up to the presented token for
   * STEP_UP_GRANT_TTL_SECONDS. Every check reserves one of the user's
   * STEP_UP_FAILURES (shared by all processes, across codes) before the code
   * is compared; a right code gives it back. Once they are spent the code is
   * deleted and checks are 429 with Retry-After until the hour ends.
   */
  async verify(user: AuthUser, code: string): Promise<{ expiresIn: number }> {
    const { repo, events, secret, limits } = this.deps;
    const failuresKey = `step_up:failures:${user.id}`;
    const failures = await limits.take(failuresKey, STEP_UP_FAILURES);
    if (!failures.allowed) {
      events.record('step_up_throttled');
      throw tooManyRequests('Too many wrong verification codes; try again later', failures);
    }
    const attempt = await repo.countAttempt(user.id, STEP_UP_MAX_ATTEMPTS);
    if (!attempt) {
      await limits.store.release(failuresKey);
      events.audited('step_up_rejected', 'auth.step_up.rejected', user.id, { reason: 'no_live_code' });
      throw BadRequestError.withErrors('No valid verification code; request a new one', ['code has expired, was used, or too many attempts were made']);
    }
    if (!safeEqual(attempt.codeHash, hashStepUpCode(code, secret))) {
      const attemptsRemaining = Math.max(0, Math.min(STEP_UP_MAX_ATTEMPTS - attempt.attempts, STEP_UP_FAILURES.max - failures.count));
      events.audited('step_up_failed', 'auth.step_up.failed', user.id, { attemptsRemaining });
      if (attemptsRemaining === 0) {
        await repo.deleteCode(user.id);
        events.audited('step_up_locked', 'auth.step_up.locked', user.id, {}, 'warn');
        throw BadRequestError.withErrors('Invalid verification code; too many attempts, request a new one', ['code is wrong'], { attemptsRemaining });
      }
      throw BadRequestError.withErrors('Invalid verification code', ['code is wrong'], { attemptsRemaining });
    }
    await limits.store.release(failuresKey);
    if (!(await repo.consumeCode(user.id, attempt.codeHash))) {
      // A parallel request with the same code consumed it first.
      throw BadRequestError.withErrors('No valid verification code; request a new one', ['code was already used']);
    }
    await repo.grant(user.jti, user.id, STEP_UP_GRANT_TTL_SECONDS);
    events.audited('step_up_verified', 'auth.step_up.verified', user.id, { expiresIn: STEP_UP_GRANT_TTL_SECONDS });
    return { expiresIn: STEP_UP_GRANT_TTL_SECONDS };
  }

  /** True while the presented token holds a live grant. */
  hasGrant(user: AuthUser): Promise<boolean> {
    return this.deps.repo.hasLiveGrant(user.jti, user.id);
  }

  revokeGrant(user: AuthUser): Promise<void> {
    return this.deps.repo.revokeGrant(user.jti);
  }
}
