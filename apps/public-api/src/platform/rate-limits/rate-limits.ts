import { TooManyRequestsError } from '@docflow/service-kit';
import type { PublicApiDatabase } from '../database';
import { RateLimitRepository, type WindowCount } from './rate-limit.repository';

/** A limit: at most `max` hits per fixed window of `windowSeconds`. */
export interface Limit {
  max: number;
  windowSeconds: number;
}

export const PER_MINUTE = (max: number): Limit => ({ max, windowSeconds: 60 });

export interface LimitVerdict extends WindowCount {
  allowed: boolean;
}

/** The 429 of a limit: the spec's error body with `details.retry_after` (the error middleware also sends it as Retry-After). */
export function tooManyRequests(message: string, verdict: WindowCount, details: Record<string, unknown> = {}): TooManyRequestsError {
  return new TooManyRequestsError(message, { ...details, retry_after: verdict.retryAfterSeconds });
}

/**
 * Every rate limit and throttle of the public API, counted in one store
 * shared by all its processes and replicas (PostgreSQL, RateLimitRepository),
 * so that N processes never allow N times a limit. Keys are namespaced by
 * their callers (`webhook:<id>`, `poll:<caller>:<execution>`, ...).
 */
export class RateLimits {
  readonly store: RateLimitRepository;

  constructor(database: PublicApiDatabase) {
    this.store = new RateLimitRepository(database);
  }

  /** Counts one hit of `key`; not allowed once the window holds more than `limit.max`. */
  async take(key: string, limit: Limit): Promise<LimitVerdict> {
    const counted = await this.store.hit(key, limit.windowSeconds);
    return { ...counted, allowed: counted.count <= limit.max };
  }

  /** Counts one hit of `key` and throws 429 (with Retry-After) when it is over the limit. */
  async enforce(key: string, limit: Limit, message: string): Promise<void> {
    const verdict = await this.take(key, limit);
    if (!verdict.allowed) throw tooManyRequests(message, verdict, { limit: limit.max, window_seconds: limit.windowSeconds });
  }

  /** Whether `key` has already reached `limit.max` in its live window (counting nothing); the window's remaining time when so. */
  async reached(key: string, limit: Limit): Promise<WindowCount | undefined> {
    const current = await this.store.peek(key);
    return current && current.count >= limit.max ? current : undefined;
  }
}
