import { isPlainObject } from '../types';

/**
 * Per-node retry (issue #15 item 4): `retry: {max_attempts, backoff_seconds}`
 * in a task node's config. A transient failure (REST 429/5xx, network and
 * timeouts) is tried again up to max_attempts in all, waiting backoff_seconds
 * × 2^(attempt-1) between attempts; configuration errors never are.
 */
export interface RetryPolicy {
  /** Attempts in all, the first included (1: no retry). */
  maxAttempts: number;
  /** Wait before the second attempt; doubled before each later one. */
  backoffSeconds: number;
}

/** Bounds on what a definition may ask: a retry loop must not pin a processor. */
export const RETRY_LIMITS = Object.freeze({ maxAttempts: 10, maxBackoffSeconds: 300 });

export const NO_RETRY: Readonly<RetryPolicy> = Object.freeze({ maxAttempts: 1, backoffSeconds: 0 });

/** Problems of a node's `retry` config (none when absent). */
export function retryConfigErrors(value: unknown, label: string): string[] {
  if (value === undefined || value === null) return [];
  if (!isPlainObject(value)) return [`${label} must be an object {max_attempts, backoff_seconds}`];
  const errors: string[] = [];
  for (const key of Object.keys(value)) {
    if (key !== 'max_attempts' && key !== 'backoff_seconds') errors.push(`${label}.${key} is not a retry setting (max_attempts, backoff_seconds)`);
  }
  const attempts = value['max_attempts'];
  if (typeof attempts !== 'number' || !Number.isInteger(attempts) || attempts < 1 || attempts > RETRY_LIMITS.maxAttempts) {
    errors.push(`${label}.max_attempts must be an integer from 1 to ${RETRY_LIMITS.maxAttempts}`);
  }
  const backoff = value['backoff_seconds'];
  if (backoff !== undefined && (typeof backoff !== 'number' || !Number.isFinite(backoff) || backoff < 0 || backoff > RETRY_LIMITS.maxBackoffSeconds)) {
    errors.push(`${label}.backoff_seconds must be a number from 0 to ${RETRY_LIMITS.maxBackoffSeconds}`);
  }
  return errors;
}

/** The policy of a node's config; NO_RETRY when absent or invalid (validation refuses invalid ones before a run). */
export function retryPolicyOf(config: Record<string, unknown>): RetryPolicy {
  const value = config['retry'];
  if (retryConfigErrors(value, 'retry').length || !isPlainObject(value)) return NO_RETRY;
  return { maxAttempts: value['max_attempts'] as number, backoffSeconds: typeof value['backoff_seconds'] === 'number' ? value['backoff_seconds'] : 1 };
}

/** Milliseconds to wait after failed attempt `attempt` (1-based): backoff × 2^(attempt-1), capped at the limit. */
export function retryDelayMs(policy: RetryPolicy, attempt: number): number {
  return Math.min(policy.backoffSeconds * 2 ** (attempt - 1), RETRY_LIMITS.maxBackoffSeconds) * 1000;
}
