import type { Logger } from '@docflow/service-kit';
import { clip, readErrorBody, retryAfterOf } from './error-body';
import { InternalHttpClient, InternalHttpError, type InternalHttpClientOptions } from './internal-http-client';
import { InternalServiceError } from './internal-service-error';

export interface JsonCallOptions {
  body?: unknown;
  query?: Record<string, string | number | undefined>;
  signal?: AbortSignal;
  timeoutMs?: number;
}

export type ErrorFactory = (code: string, message: string, options: { status?: number; retryable?: boolean; retryAfterSeconds?: number; details?: Record<string, unknown> }) => InternalServiceError;

/** Statuses worth retrying later: the service is overloaded or a dependency is down. */
const RETRYABLE_STATUSES = new Set([408, 429, 503, 504]);

/**
 * JSON calls to one internal service whose every failure is the caller's
 * typed InternalServiceError: a refusal keeps the service's code, message,
 * details and Retry-After (spec 7); no answer is `timeout` or `unreachable`
 * (retryable), `aborted` or `bad_response`.
 */
export class JsonServiceClient {
  private readonly http: InternalHttpClient;
  private readonly logger: Logger | undefined;

  constructor(
    options: InternalHttpClientOptions & { logger?: Logger },
    private readonly makeError: ErrorFactory,
  ) {
    this.http = new InternalHttpClient(options);
    this.logger = options.logger;
  }

  async get<T = unknown>(path: string, options: JsonCallOptions = {}): Promise<T> {
    return this.call<T>('GET', path, options);
  }

  async post<T = unknown>(path: string, body: unknown, options: JsonCallOptions = {}): Promise<T> {
    return this.call<T>('POST', path, { ...options, body });
  }

  close(): void {
    this.http.close();
  }

  private async call<T>(method: 'GET' | 'POST', path: string, options: JsonCallOptions): Promise<T> {
    const service = this.http.service;
    let res;
    try {
      res = await this.http.request({ method, path, query: options.query, json: options.body, signal: options.signal, timeoutMs: options.timeoutMs });
    } catch (err) {
      if (err instanceof InternalHttpError) {
        const retryable = err.kind === 'timeout' || err.kind === 'unreachable';
        throw this.makeError(err.kind, err.message, { retryable });
      }
      throw err;
    }
    if (res.status >= 200 && res.status < 300) return res.body as T;
    const { code, message, details } = readErrorBody(res.status, res.body);
    const retryAfterSeconds = retryAfterOf(details, res.headers['retry-after']);
    this.logger?.debug('internal call refused', { service, method, path, status: res.status, code });
    throw this.makeError(code, clip(`${service} answered ${res.status} ${code}: ${message}`), {
      status: res.status,
      retryable: RETRYABLE_STATUSES.has(res.status),
      ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
      details,
    });
  }
}
