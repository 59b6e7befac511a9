import http from 'node:http';
import https from 'node:https';
import axios, { AxiosInstance, isAxiosError } from 'axios';
import { markSpanFailed, tracingEnabled, withOutgoingSpan } from '@docflow/telemetry';
import { LlmProviderError, LlmUnavailableError, ProviderName } from './provider';

export interface RetryPolicy {
  /** Retries after the first attempt. */
  maxRetries: number;
  /** First backoff; doubles on each retry, plus up to the same again as jitter. */
  baseMs: number;
  /** A wait longer than this (e.g. a long Retry-After) ends the retries at once. */
  maxWaitMs: number;
}

/** Time and randomness, injectable so tests neither sleep nor depend on chance. */
export interface RetryClock {
  now(): number;
  sleep(ms: number): Promise<void>;
  random(): number;
}

export const systemRetryClock: RetryClock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  random: () => Math.random(),
};

export interface ProviderHttpOptions {
  provider: ProviderName;
  baseUrl: string;
  headers: Record<string, string>;
  timeoutMs: number;
  retry: RetryPolicy;
  clock: RetryClock;
  /** Values that must never appear in an error message (the API key). */
  secrets?: string[];
}

type Attempt = { kind: 'ok'; data: unknown } | { kind: 'refused'; status: number; message: string } | { kind: 'retryable'; reason: string; retryAfterMs?: number };

const MAX_MESSAGE = 500;

/** Reads `error.message` (OpenAI and Anthropic), `message` or a text body. */
export function providerMessage(data: unknown, status: number): string {
  if (typeof data === 'string' && data.trim()) return data.trim();
  if (data && typeof data === 'object') {
    const body = data as { error?: unknown; message?: unknown };
    if (typeof body.error === 'string') return body.error;
    if (body.error && typeof body.error === 'object') {
      const m = (body.error as { message?: unknown }).message;
      if (typeof m === 'string') return m;
    }
    if (typeof body.message === 'string') return body.message;
  }
  return `HTTP ${status}`;
}

/** Seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: unknown, now: number): number | undefined {
  if (typeof value !== 'string' || !value.trim()) return undefined;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

/**
 * POSTs JSON to one provider with a per-attempt timeout, retrying 429 (after
 * Retry-After when given), 5xx, timeouts and connection errors with
 * exponential backoff and jitter. Other 4xx are not retried.
 */
const keepAliveHttp = new http.Agent({ keepAlive: true, maxSockets: 64 });
const keepAliveHttps = new https.Agent({ keepAlive: true, maxSockets: 64 });

export class ProviderHttp {
  private readonly client: AxiosInstance;

  constructor(private readonly options: ProviderHttpOptions) {
    this.client = axios.create({
      timeout: options.timeoutMs,
      headers: { 'content-type': 'application/json', ...options.headers },
      validateStatus: () => true,
      // Providers answer directly; skipping axios's redirect wrapper saves a
      // quarter of the service's CPU per call (bench/llm-service.bench.ts profile).
      maxRedirects: 0,
      httpAgent: keepAliveHttp,
      httpsAgent: keepAliveHttps,
      maxBodyLength: 50 * 1024 * 1024,
      maxContentLength: 50 * 1024 * 1024,
      transitional: { clarifyTimeoutError: true, silentJSONParsing: true, forcedJSONParsing: true },
    });
  }

  async post(path: string, body: unknown): Promise<unknown> {
    const { retry, clock, provider } = this.options;
    const url = `${this.options.baseUrl.replace(/\/+$/, '')}${path}`;
    let attempts = 0;
    for (;;) {
      attempts += 1;
      const result = await this.attempt(url, body);
      switch (result.kind) {
        case 'ok':
          return result.data;
        case 'refused':
          throw new LlmProviderError(this.scrub(`${provider} rejected the request (HTTP ${result.status}): ${result.message}`), provider, result.status);
        case 'retryable': {
          const backoff = retry.baseMs * 2 ** (attempts - 1) + clock.random() * retry.baseMs;
          const delay = result.retryAfterMs ?? backoff;
          if (attempts > retry.maxRetries || delay > retry.maxWaitMs) {
            const retryAfter = Math.max(1, Math.ceil(delay / 1000));
            throw new LlmUnavailableError(this.scrub(`${provider} is unavailable after ${attempts} attempt(s): ${result.reason}`), retryAfter, provider);
          }
          await clock.sleep(delay);
          break;
        }
        default: {
          const unreachable: never = result;
          throw new Error(`unexpected attempt result ${String(unreachable)}`);
        }
      }
    }
  }

  /** One attempt in a client span (tracing on); no traceparent is sent: a provider is a third party. */
  private attempt(url: string, body: unknown): Promise<Attempt> {
    if (!tracingEnabled()) return this.send(url, body);
    const attributes = { 'http.request.method': 'POST', 'server.address': new URL(url).hostname, 'url.path': new URL(url).pathname, 'peer.service': this.options.provider };
    return withOutgoingSpan(`POST ${this.options.provider}`, 'client', attributes, async (_traceparent, span) => {
      const result = await this.send(url, body);
      if (result.kind === 'refused') span?.setAttribute('http.response.status_code', result.status);
      if (result.kind !== 'ok') markSpanFailed(span, result.kind === 'refused' ? `HTTP ${result.status}` : result.reason);
      return result;
    });
  }

  private async send(url: string, body: unknown): Promise<Attempt> {
    try {
      const res = await this.client.post<unknown>(url, body);
      if (res.status >= 200 && res.status < 300) return { kind: 'ok', data: res.data };
      const retryAfterHeader: unknown = res.headers['retry-after'];
      if (res.status === 429) {
        return { kind: 'retryable', reason: `HTTP 429: ${providerMessage(res.data, 429)}`, retryAfterMs: parseRetryAfter(retryAfterHeader, this.options.clock.now()) };
      }
      if (res.status >= 500) {
        return { kind: 'retryable', reason: `HTTP ${res.status}`, retryAfterMs: parseRetryAfter(retryAfterHeader, this.options.clock.now()) };
      }
      return { kind: 'refused', status: res.status, message: providerMessage(res.data, res.status) };
    } catch (err) {
      if (!isAxiosError(err)) throw err;
      if (err.code === 'ETIMEDOUT' || err.code === 'ECONNABORTED') return { kind: 'retryable', reason: `no answer within ${this.options.timeoutMs} ms` };
      return { kind: 'retryable', reason: `connection error ${err.code ?? err.message}` };
    }
  }

  private scrub(message: string): string {
    let out = message;
    for (const secret of this.options.secrets ?? []) {
      if (secret) out = out.split(secret).join('[redacted]');
    }
    return out.length > MAX_MESSAGE ? `${out.slice(0, MAX_MESSAGE)}…` : out;
  }
}
