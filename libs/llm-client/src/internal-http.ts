import http from 'node:http';
import https from 'node:https';
import axios, { type AxiosInstance, isAxiosError, isCancel } from 'axios';
import { CORRELATION_HEADER, currentCorrelationId, errorMessage, isPlainObject, type Logger } from '@docflow/service-kit';
import { InternalServiceError } from './errors';

export interface InternalHttpOptions {
  /** Name used in error messages and logs: `llm-service`, `public-api`. */
  service: string;
  baseUrl: string;
  /** Sent as `X-Service-Key`; never logged. */
  serviceKey: string;
  /** Per-request timeout. */
  timeoutMs: number;
  logger?: Logger;
  /** Largest response body accepted (bytes). Default 64 MiB. */
  maxResponseBytes?: number;
}

export interface RequestOptions {
  body?: unknown;
  query?: Record<string, string | number | undefined>;
  signal?: AbortSignal;
  timeoutMs?: number;
}

export type ErrorFactory = (
  code: string,
  message: string,
  options: { status?: number; retryable?: boolean; retryAfterSeconds?: number; details?: Record<string, unknown> },
) => InternalServiceError;

const DEFAULT_CODES: Record<number, string> = {
  400: 'validation_error',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  408: 'timeout',
  409: 'conflict',
  413: 'payload_too_large',
  422: 'unprocessable_entity',
  429: 'rate_limited',
  500: 'internal_error',
  502: 'bad_gateway',
  503: 'service_unavailable',
  504: 'timeout',
};

/** Statuses worth retrying later: the service is overloaded or a dependency is down. */
const RETRYABLE_STATUSES = new Set([408, 429, 503, 504]);
const MAX_MESSAGE = 500;

function clip(text: string): string {
  return text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE)}…` : text;
}

/**
 * Reads the internal error body `{error: code, message, details}` and the
 * public one `{error: {status, name, message, details}}`.
 */
export function readErrorBody(status: number, data: unknown): { code: string; message: string; details: Record<string, unknown> } {
  const fallback = DEFAULT_CODES[status] ?? 'http_error';
  if (isPlainObject(data)) {
    if (typeof data.error === 'string') {
      return { code: data.error, message: typeof data.message === 'string' ? data.message : `HTTP ${status}`, details: isPlainObject(data.details) ? data.details : {} };
    }
    if (isPlainObject(data.error)) {
      const e = data.error;
      return { code: fallback, message: typeof e.message === 'string' ? e.message : `HTTP ${status}`, details: isPlainObject(e.details) ? e.details : {} };
    }
    if (typeof data.message === 'string') return { code: fallback, message: data.message, details: {} };
  }
  if (typeof data === 'string' && data.trim()) return { code: fallback, message: clip(data.trim()), details: {} };
  return { code: fallback, message: `HTTP ${status}`, details: {} };
}

function retryAfterOf(details: Record<string, unknown>, header: unknown): number | undefined {
  const fromBody = details.retry_after;
  if (typeof fromBody === 'number' && Number.isFinite(fromBody) && fromBody >= 0) return fromBody;
  if (typeof header === 'string' && /^\d+$/.test(header.trim())) return Number(header.trim());
  return undefined;
}

/**
 * JSON over HTTP to one internal service, with keep-alive agents (one pool
 * per client), the service key, the current correlation id, a timeout, and
 * every failure turned into the caller's typed error.
 */
export class InternalHttp {
  private readonly client: AxiosInstance;
  private readonly httpAgent = new http.Agent({ keepAlive: true, maxSockets: 64, maxFreeSockets: 16 });
  private readonly httpsAgent = new https.Agent({ keepAlive: true, maxSockets: 64, maxFreeSockets: 16 });

  constructor(
    private readonly options: InternalHttpOptions,
    private readonly makeError: ErrorFactory,
  ) {
    const maxBytes = options.maxResponseBytes ?? 64 * 1024 * 1024;
    this.client = axios.create({
      baseURL: options.baseUrl.replace(/\/+$/, ''),
      timeout: options.timeoutMs,
      httpAgent: this.httpAgent,
      httpsAgent: this.httpsAgent,
      headers: { 'content-type': 'application/json', accept: 'application/json', 'x-service-key': options.serviceKey },
      validateStatus: () => true,
      maxContentLength: maxBytes,
      maxBodyLength: maxBytes,
      maxRedirects: 0,
      proxy: false,
      transitional: { clarifyTimeoutError: true, silentJSONParsing: true, forcedJSONParsing: true },
    });
  }

  async get<T = unknown>(path: string, options: RequestOptions = {}): Promise<T> {
    return this.request<T>('GET', path, options);
  }

  async post<T = unknown>(path: string, body: unknown, options: RequestOptions = {}): Promise<T> {
    return this.request<T>('POST', path, { ...options, body });
  }

  /** Frees the pooled sockets. */
  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }

  private async request<T>(method: 'GET' | 'POST', path: string, options: RequestOptions): Promise<T> {
    // A pooled socket the server closed while idle fails with ECONNRESET before any answer: try once more on a fresh one.
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.once<T>(method, path, options);
      } catch (err) {
        if (attempt === 1 && isAxiosError(err) && err.code === 'ECONNRESET' && !err.response && !options.signal?.aborted) continue;
        throw this.toError(err, method, path, options);
      }
    }
  }

  private async once<T>(method: 'GET' | 'POST', path: string, options: RequestOptions): Promise<T> {
    const correlationId = currentCorrelationId();
    const res = await this.client.request<unknown>({
      method,
      url: path,
      params: options.query,
      data: options.body,
      signal: options.signal,
      ...(options.timeoutMs !== undefined ? { timeout: options.timeoutMs } : {}),
      ...(correlationId ? { headers: { [CORRELATION_HEADER]: correlationId } } : {}),
    });
    if (res.status >= 200 && res.status < 300) return res.data as T;
    const { code, message, details } = readErrorBody(res.status, res.data);
    const retryAfterSeconds = retryAfterOf(details, res.headers['retry-after']);
    this.options.logger?.debug('internal call refused', { service: this.options.service, method, path, status: res.status, code });
    throw this.makeError(code, clip(`${this.options.service} answered ${res.status} ${code}: ${message}`), {
      status: res.status,
      retryable: RETRYABLE_STATUSES.has(res.status),
      ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
      details,
    });
  }

  private toError(err: unknown, method: string, path: string, options: RequestOptions): InternalServiceError {
    if (err instanceof InternalServiceError) return err;
    const service = this.options.service;
    if (isCancel(err) || options.signal?.aborted) return this.makeError('aborted', `${service} call ${method} ${path} was cancelled`, { retryable: false });
    if (isAxiosError(err)) {
      if (err.code === 'ETIMEDOUT' || err.code === 'ECONNABORTED') {
        const ms = options.timeoutMs ?? this.options.timeoutMs;
        return this.makeError('timeout', `${service} did not answer ${method} ${path} within ${ms} ms`, { retryable: true });
      }
      if (err.code === 'ERR_BAD_RESPONSE' || err.message.includes('maxContentLength')) {
        return this.makeError('bad_response', `${service} sent an unreadable or oversized answer to ${method} ${path}`, { retryable: false });
      }
      return this.makeError('unreachable', `${service} is unreachable at ${this.options.baseUrl} (${err.code ?? err.message})`, { retryable: true });
    }
    return this.makeError('bad_response', `${service} call ${method} ${path} failed: ${errorMessage(err)}`, { retryable: false });
  }
}
