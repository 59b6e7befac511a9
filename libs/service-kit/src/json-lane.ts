import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { tracingEnabled } from '@docflow/telemetry';
import { CORRELATION_HEADER, newCorrelationId, runWithContext, sanitizeCorrelationId } from './context';
import { BadRequestError, PayloadTooLargeError } from './errors';
import { type ErrorStyle, respondWithError, sendJson } from './http';
import { jsonDepthExceeds, MAX_JSON_DEPTH } from './json-depth';
import type { Logger } from './logger';
import type { Metrics } from './metrics';
import { unstorableMessage, unstorablePath } from './storable-text';

export interface JsonLaneOptions {
  /** The one route the lane serves: POST on this exact path (no query string). */
  path: string;
  /** The express app (createHttpApp): every request the lane does not take goes there. */
  fallback: RequestListener;
  /** The body limit of the express app, in bytes. */
  maxBodyBytes: number;
  errorStyle: ErrorStyle;
  logger: Logger;
  metrics: Metrics;
  /**
   * The route: authenticates from the headers and validates the parsed body
   * (parseBody) as an express route would, and answers the 200 body. An
   * AppError it throws is answered in the service's style.
   */
  handle: (headers: IncomingMessage['headers'], body: unknown) => Promise<unknown>;
}

/**
 * One JSON POST route served by node:http ahead of express, for a hot path
 * that every call of another service waits for (Data Shield's tokenise):
 * express's per-request work (its router, body-parser, the middleware
 * stack) was about a third of the gateway's CPU per shielded call. See
 * requestLane for what the lane keeps and what it leaves to express.
 */
export function jsonLane(options: JsonLaneOptions): RequestListener {
  return requestLane({
    ...options,
    routes: [
      {
        method: 'POST',
        path: new RegExp(`^${options.path.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`),
        label: options.path,
        admit: (_req, query) => (query === undefined ? true : undefined),
        handle: async ({ req, body }) => ({ status: 200, body: await options.handle(req.headers, body) }),
      },
    ],
  });
}

/** What a lane route answers: a status and a JSON body, or nothing when it wrote (or could not write) the response itself. */
export type LaneAnswer = { status: number; body: unknown } | undefined;

export interface LaneCall<A> {
  req: IncomingMessage;
  res: ServerResponse;
  /** The path's captures, undecoded (routes capture only characters that need no decoding). */
  params: readonly string[];
  /** The raw query string (undefined without a `?`). */
  query: string | undefined;
  /** The parsed JSON body, as express.json leaves req.body: undefined without a body, `{}` for an empty one. */
  body: unknown;
  /** What the route's admit returned. */
  admitted: A;
}

export interface LaneRoute<A = unknown> {
  method: 'GET' | 'POST';
  /** Matched against the path without its query string. */
  path: RegExp;
  /** The route as express names it in the request metric (`/api/things/:id`). */
  label: string;
  /**
   * Decides, before the body is read, whether the lane serves this request:
   * undefined sends it to express untouched. `query` is the raw query string
   * (undefined without a `?`); `params` the path's captures, as `handle` gets
   * them. What it returns reaches `handle`; a promise it returns must not
   * reject unobserved (handle awaits it).
   */
  admit(req: IncomingMessage, query: string | undefined, params: readonly string[]): A | undefined;
  handle(call: LaneCall<A>): Promise<LaneAnswer>;
}

export interface RequestLaneOptions {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each route has its own admitted type
  routes: readonly LaneRoute<any>[];
  /** The express app (createHttpApp): every request the lane does not take goes there. */
  fallback: RequestListener;
  /** The body limit of the express app, in bytes. */
  maxBodyBytes: number;
  errorStyle: ErrorStyle;
  logger: Logger;
  metrics: Metrics;
}

const NO_CAPTURES: readonly string[] = [];

const JSON_UTF8 = /^application\/json\s*(?:;\s*charset="?utf-8"?\s*)?$/i;

/**
 * A few hot JSON routes served by node:http ahead of express (createHttpApp):
 * express's per-request work (its router walking every route, body-parser,
 * the middleware stack, res.json) is most of a short request's CPU. The lane
 * keeps what createHttpApp gives a request: the correlation id (answered in
 * the header, current while the handler runs), the request duration metric
 * and log line, the body limit, the depth and storable-text checks on the
 * body, the same 400/413 answers, and errors in the service's style (an
 * unexpected one as 500 with a logged error id). Anything else goes to
 * `fallback` untouched: another method or path, a request its route does not
 * admit, a body that is not plain UTF-8 JSON (compressed, another type or
 * charset: text/plain gets its 415 there), a GET with a body, and every
 * request while tracing is on (express's stack makes the server spans).
 */
export function requestLane(options: RequestLaneOptions): RequestListener {
  const { routes, fallback } = options;
  return (req, res) => {
    const url = req.url ?? '';
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    const query = q === -1 ? undefined : url.slice(q + 1);
    let route: LaneRoute | undefined;
    let params: RegExpExecArray | null = null;
    for (const r of routes) {
      if (r.method !== req.method) continue;
      params = r.path.exec(path);
      if (params) {
        route = r;
        break;
      }
    }
    const captures = params ? params.slice(1) : NO_CAPTURES;
    const admitted = route && plainJsonBody(req) && !tracingEnabled() ? admit(route, req, query, captures) : undefined;
    if (!route || !params || admitted === undefined) {
      fallback(req, res);
      return;
    }
    serve(options, route, { req, res, params: captures, query, body: undefined, admitted }, path);
  };
}

/** A route's admit; one that throws leaves the request to express, whose error handling answers it (a listener must never throw). */
function admit(route: LaneRoute, req: IncomingMessage, query: string | undefined, params: readonly string[]): unknown {
  try {
    return route.admit(req, query, params);
  } catch {
    return undefined;
  }
}

/** No body, or one express.json would parse as is: UTF-8 JSON (or no type), not compressed; a GET has none. */
function plainJsonBody(req: IncomingMessage): boolean {
  const { headers } = req;
  if (!hasBody(req)) return true;
  if (req.method === 'GET') return false;
  const type = headers['content-type'];
  const encoding = headers['content-encoding'];
  return (type === undefined || JSON_UTF8.test(type)) && (encoding === undefined || encoding.toLowerCase() === 'identity');
}

/** type-is's hasBody, which body-parser asks before reading: a body is announced by either header. */
function hasBody(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || !isNaN(Number(req.headers['content-length'] ?? NaN));
}

function serve(options: RequestLaneOptions, route: LaneRoute, call: LaneCall<unknown>, path: string): void {
  const { req, res } = call;
  const method = route.method;
  const correlationId = sanitizeCorrelationId(req.headers[CORRELATION_HEADER]) ?? newCorrelationId();
  res.setHeader(CORRELATION_HEADER, correlationId);
  const started = process.hrtime.bigint();
  res.on('finish', () => {
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    options.metrics.httpDuration.observe({ method, route: route.label, status_code: String(res.statusCode) }, seconds);
    const meta = { method, path, status: res.statusCode, ms: Math.round(seconds * 1000), correlationId };
    if (res.statusCode >= 500) options.logger.warn('request', meta);
    else options.logger.debug('request', meta);
  });
  const fail = (err: unknown) => respondWithError(res, options.errorStyle, options.logger, err, { method, path });
  const body: Promise<Buffer | undefined> = hasBody(req) ? readBody(req, options.maxBodyBytes) : Promise.resolve(undefined);
  body.then(
    (raw) =>
      runWithContext({ correlationId }, async () => {
        try {
          const answer = await route.handle({ ...call, body: raw === undefined ? undefined : parseJson(raw) });
          if (answer) sendJson(res, answer.status, answer.body);
        } catch (err) {
          fail(err);
        }
      }),
    (err: unknown) => {
      fail(err);
      // The rest of an oversized body is read and dropped, so the connection stays usable.
      req.resume();
    },
  );
}

/** The body's bytes, at most `max` (413 beyond, as express.json answers). */
function readBody(req: IncomingMessage, max: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (declared > max) {
      reject(new PayloadTooLargeError('Request body is too large'));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= max) chunks.push(chunk);
      else {
        req.off('data', onData);
        reject(new PayloadTooLargeError('Request body is too large'));
      }
    };
    req.on('data', onData);
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', () => reject(new BadRequestError('Invalid request body', {}, 'invalid_body')));
  });
}

/** The checks createHttpApp's parser and refuseUnstorableText make, with their answers. */
function parseJson(raw: Buffer): unknown {
  // body-parser answers an empty JSON body as {} and decodes with iconv-lite, which drops a byte order mark.
  if (raw.length === 0) return {};
  if (jsonDepthExceeds(raw, MAX_JSON_DEPTH)) throw BadRequestError.withErrors('Request body is nested too deeply', [`JSON may nest objects and arrays ${MAX_JSON_DEPTH} levels deep`]);
  let body: unknown;
  try {
    const text = raw.toString('utf8');
    body = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text) as unknown;
  } catch {
    throw new BadRequestError('Malformed JSON body', { errors: ['body is not valid JSON'] });
  }
  const bad = unstorablePath(body);
  if (bad !== undefined) throw BadRequestError.withErrors('Invalid request', [unstorableMessage(bad)]);
  return body;
}
