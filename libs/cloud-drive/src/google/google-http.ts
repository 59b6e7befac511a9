import type { Readable } from 'node:stream';
import http from 'node:http';
import https from 'node:https';
import axios, { type AxiosInstance, type AxiosRequestConfig, type AxiosResponse, isAxiosError } from 'axios';
import { DriveRetryableError } from '../drive-errors';

/** How calls to Google are retried on 429, 5xx, rate-limit 403s and network errors. */
export interface RetryPolicy {
  /** Attempts in all, the first included. Default 4. */
  maxAttempts: number;
  /** First backoff without Retry-After; doubles each attempt, with jitter. Default 500 ms. */
  baseDelayMs: number;
  /** A longer wait (Retry-After included) is not slept here: DriveRetryableError hands it to the caller. Default 30 s. */
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 4, baseDelayMs: 500, maxDelayMs: 30_000 };

const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 500, 502, 503, 504]);
/** Google answers some rate limits with 403 and one of these reasons. */
const RATE_LIMIT_REASONS: ReadonlySet<string> = new Set(['rateLimitExceeded', 'userRateLimitExceeded']);

/** `Retry-After` as milliseconds: delta-seconds or an HTTP date (RFC 9110 10.2.3); undefined when absent or unreadable. */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Google's error `reason` (`error.errors[0].reason`) of a JSON error body, if any. */
export function googleReason(data: unknown): string | undefined {
  const error = (data as { error?: { errors?: { reason?: unknown }[] } } | null)?.error;
  const reason = Array.isArray(error?.errors) ? error.errors[0]?.reason : undefined;
  return typeof reason === 'string' ? reason : undefined;
}

/** Which parameter Google's error is about (`error.errors[0].location`), if it says. */
export function googleLocation(data: unknown): string | undefined {
  const error = (data as { error?: { errors?: { location?: unknown }[] } } | null)?.error;
  const location = Array.isArray(error?.errors) ? error.errors[0]?.location : undefined;
  return typeof location === 'string' ? location : undefined;
}

/** A short text of an error answer, for messages (never a token). */
export function googleMessage(status: number, data: unknown): string {
  const error = (data as { error?: unknown; error_description?: unknown } | null) ?? {};
  if (typeof error.error === 'object' && error.error !== null) {
    const message = (error.error as { message?: unknown }).message;
    if (typeof message === 'string') return `${status} ${message.slice(0, 300)}`;
  }
  if (typeof error.error === 'string') return `${status} ${error.error}${typeof error.error_description === 'string' ? `: ${error.error_description.slice(0, 300)}` : ''}`;
  return `${status}`;
}

function isRetryable(response: AxiosResponse): boolean {
  if (RETRYABLE_STATUSES.has(response.status)) return true;
  return response.status === 403 && RATE_LIMIT_REASONS.has(googleReason(response.data) ?? '');
}

export interface GoogleHttpOptions {
  retry?: Partial<RetryPolicy>;
  /** Per request. Default 30 000 ms. */
  timeoutMs?: number;
  /** For tests: how backoff waits. */
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * HTTP to Google with backoff: 429, 5xx, rate-limit 403s and network
 * failures are retried, waiting what `Retry-After` says (or an exponential
 * backoff with jitter); any other status is returned for the caller to map.
 * A wait longer than `maxDelayMs`, or the last failed attempt, becomes
 * DriveRetryableError carrying the wait, so a worker can reschedule.
 */
export class GoogleHttp {
  readonly client: AxiosInstance;
  private readonly retry: RetryPolicy;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;
  private readonly agents = { http: new http.Agent({ keepAlive: true, maxSockets: 16 }), https: new https.Agent({ keepAlive: true, maxSockets: 16 }) };

  constructor(options: GoogleHttpOptions = {}) {
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.sleep = options.sleep ?? defaultSleep;
    this.random = options.random ?? Math.random;
    this.client = axios.create({
      timeout: options.timeoutMs ?? 30_000,
      httpAgent: this.agents.http,
      httpsAgent: this.agents.https,
      maxRedirects: 0,
      maxContentLength: 16 * 1024 * 1024,
      validateStatus: () => true,
      transitional: { clarifyTimeoutError: true },
    });
  }

  async send<T = unknown>(config: AxiosRequestConfig): Promise<AxiosResponse<T>> {
    for (let attempt = 1; ; attempt += 1) {
      let response: AxiosResponse<T> | undefined;
      let failure: string;
      try {
        response = await this.client.request<T>(config);
        if (!isRetryable(response)) return response;
        failure = `Google Drive answered ${googleMessage(response.status, response.data)}`;
        discard(response);
      } catch (err) {
        if (!isAxiosError(err)) throw err;
        failure = `Google Drive could not be reached (${err.code ?? 'network error'})`;
      }
      const advised = response ? retryAfterMs(headerOf(response, 'retry-after')) : undefined;
      const backoff = this.retry.baseDelayMs * 2 ** (attempt - 1) * (0.5 + this.random() / 2);
      const delay = advised ?? backoff;
      if (attempt >= this.retry.maxAttempts || delay > this.retry.maxDelayMs) {
        throw new DriveRetryableError(failure, Math.max(delay, advised ?? 0), response?.status);
      }
      await this.sleep(delay);
    }
  }

  close(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }
}

function headerOf(response: AxiosResponse, name: string): string | undefined {
  const value: unknown = response.headers[name];
  return typeof value === 'string' ? value : undefined;
}

/** A streamed error answer is dropped before the next attempt. */
function discard(response: AxiosResponse): void {
  const data = response.data as Readable | undefined;
  if (data && typeof data === 'object' && typeof (data as Readable).destroy === 'function' && typeof (data as Readable).pipe === 'function') data.destroy();
}
