import http from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import { CORRELATION_HEADER, currentCorrelationId } from '@docflow/service-kit';
import { markSpanFailed, tracingEnabled, withOutgoingSpan } from '@docflow/telemetry';
import { authHeaders, type ServiceAuth } from './service-auth';

export interface InternalHttpClientOptions {
  /** The service called, for error messages and logs: `router`, `public-api`, `llm-service`, `data-shield`. */
  service: string;
  /** e.g. http://127.0.0.1:1337 (a trailing slash is ignored). */
  baseUrl: string;
  auth: ServiceAuth;
  /** The whole exchange, request and answer, per call unless the call sets its own. */
  timeoutMs: number;
  /** Largest answer read (bytes); a larger one fails with `bad_response`. Default 64 MiB. */
  maxResponseBytes?: number;
  /** Pooled sockets per client. Default 64. */
  maxSockets?: number;
}

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface InternalRequest {
  method: HttpMethod;
  /** Path on the base URL, with a leading slash. */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  /** A JSON body. */
  json?: unknown;
  /** A streamed body (never retried); `contentType` defaults to application/octet-stream. */
  stream?: { body: Readable; contentType?: string };
  /** Extra headers; they win over the defaults, so a caller may pass a correlation id of its own. */
  headers?: Record<string, string>;
  signal?: AbortSignal;
  timeoutMs?: number;
}

export interface InternalResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The answer parsed as JSON, or its text when it is not JSON ('' when empty). */
  body: unknown;
}

/** No answer: `timeout`, `unreachable`, `aborted` (the caller's signal), or `bad_response` (oversized or cut). */
export type TransportFailure = 'timeout' | 'unreachable' | 'aborted' | 'bad_response';

/** A call that got no complete answer. A status other than 2xx is an answer, not this error. */
export class InternalHttpError extends Error {
  override readonly name = 'InternalHttpError';

  constructor(
    readonly kind: TransportFailure,
    message: string,
    /** The socket error code (ECONNREFUSED, ECONNRESET, ...), when there was one. */
    readonly code?: string,
  ) {
    super(message);
  }
}

function parseBody(text: string): unknown {
  if (text === '') return '';
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * HTTP between Docflow's services, the one transport for every internal
 * call: node:http with kept-alive sockets (one pool per client; fetch's
 * streams and timers cost more CPU than the router's own work per job), the
 * caller's service credentials, the current correlation id, one deadline
 * for the whole exchange, and a request reset before any answer sent once more.
 */
export class InternalHttpClient {
  private readonly base: URL;
  private readonly transport: typeof http | typeof https;
  private readonly agent: http.Agent;

  constructor(readonly options: InternalHttpClientOptions) {
    this.base = new URL(options.baseUrl.replace(/\/+$/, ''));
    this.transport = this.base.protocol === 'https:' ? https : http;
    this.agent = new this.transport.Agent({ keepAlive: true, maxSockets: options.maxSockets ?? 64, maxFreeSockets: 16 });
  }

  get service(): string {
    return this.options.service;
  }

  get baseUrl(): string {
    return this.options.baseUrl;
  }

  /** The answer, whatever its status; InternalHttpError when there is none. */
  async request(req: InternalRequest): Promise<InternalResponse> {
    try {
      return await this.once(req);
    } catch (err) {
      // A socket reset before any answer (typically a pooled one the server closed while idle): once more on a fresh one.
      if (err instanceof ResetBeforeAnswer && !req.stream && !req.signal?.aborted)
        return this.once(req).catch((again: unknown) => Promise.reject(again instanceof ResetBeforeAnswer ? again.failure : again));
      if (err instanceof ResetBeforeAnswer) throw err.failure;
      throw err;
    }
  }

  /** Frees the pooled sockets. */
  close(): void {
    this.agent.destroy();
  }

  private url(req: InternalRequest): URL {
    const url = new URL(this.base.pathname.replace(/\/+$/, '') + req.path, this.base);
    for (const [key, value] of Object.entries(req.query ?? {})) if (value !== undefined) url.searchParams.set(key, String(value));
    return url;
  }

  /**
   * One exchange in a client span (when tracing is on) whose W3C
   * `traceparent` goes with the request, so the called service's server
   * span is its child.
   */
  private once(req: InternalRequest): Promise<InternalResponse> {
    if (!tracingEnabled()) return this.exchange(req, {});
    const attributes = { 'http.request.method': req.method, 'url.path': req.path, 'server.address': this.base.hostname, 'peer.service': this.options.service };
    return withOutgoingSpan(`${req.method} ${this.options.service}`, 'client', attributes, async (trace, span) => {
      const res = await this.exchange(req, trace);
      span?.setAttribute('http.response.status_code', res.status);
      if (res.status >= 500) markSpanFailed(span, `HTTP ${res.status}`);
      return res;
    });
  }

  private exchange(req: InternalRequest, trace: Readonly<Record<string, string>>): Promise<InternalResponse> {
    const what = `${req.method} ${req.path}`;
    const service = this.options.service;
    if (req.signal?.aborted) return Promise.reject(new InternalHttpError('aborted', `${service} call ${what} was cancelled`));
    const payload = req.json !== undefined ? Buffer.from(JSON.stringify(req.json)) : undefined;
    const correlationId = currentCorrelationId();
    const headers: Record<string, string | number> = {
      accept: 'application/json',
      ...authHeaders(this.options.auth),
      ...(correlationId ? { [CORRELATION_HEADER]: correlationId } : {}),
      ...trace,
      ...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}),
      ...(req.stream ? { 'content-type': req.stream.contentType || 'application/octet-stream' } : {}),
      ...req.headers,
    };
    const timeoutMs = req.timeoutMs ?? this.options.timeoutMs;
    const maxBytes = this.options.maxResponseBytes ?? 64 * 1024 * 1024;

    return new Promise<InternalResponse>((resolve, reject) => {
      // Settled once: by the answer, or by the first failure (which then closes the exchange).
      let settled = false;
      let answered = false;
      const settle = (outcome: () => void): void => {
        if (settled) return;
        settled = true;
        outcome();
      };
      const fail = (f: InternalHttpError): void => {
        settle(() => reject(f));
        request.destroy();
      };
      const request = this.transport.request(this.url(req), { method: req.method, headers, agent: this.agent }, (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) fail(new InternalHttpError('bad_response', `${service} sent an unreadable or oversized answer to ${what}`));
          else chunks.push(chunk);
        });
        res.on('end', () => settle(() => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parseBody(Buffer.concat(chunks).toString('utf8')) })));
        res.on('error', (err: NodeJS.ErrnoException) => fail(new InternalHttpError('bad_response', `${service} sent an unreadable or oversized answer to ${what}`, err.code)));
      });
      const timer = setTimeout(() => fail(new InternalHttpError('timeout', `${service} did not answer ${what} within ${timeoutMs} ms`)), timeoutMs);
      const onAbort = (): void => fail(new InternalHttpError('aborted', `${service} call ${what} was cancelled`));
      req.signal?.addEventListener('abort', onAbort, { once: true });
      request.on('close', () => {
        clearTimeout(timer);
        req.signal?.removeEventListener('abort', onAbort);
      });
      request.on('error', (err: NodeJS.ErrnoException) => {
        const unreachable = new InternalHttpError('unreachable', `${service} is unreachable at ${this.options.baseUrl} (${err.code ?? err.message})`, err.code);
        settle(() => reject(err.code === 'ECONNRESET' && !answered ? new ResetBeforeAnswer(unreachable) : unreachable));
      });
      if (req.stream) {
        req.stream.body.on('error', (err) => request.destroy(err));
        req.stream.body.pipe(request);
      } else {
        request.end(payload);
      }
    });
  }
}

/** The connection was reset before any answer: the server did not act on the request. */
class ResetBeforeAnswer extends Error {
  constructor(readonly failure: InternalHttpError) {
    super(failure.message);
  }
}
