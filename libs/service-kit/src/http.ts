import express, { NextFunction, Request, RequestHandler, Response } from 'express';
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { endSpan, markSpanFailed, type Span, withIncomingSpan } from '@docflow/telemetry';
import { CORRELATION_HEADER, newCorrelationId, runWithContext, sanitizeCorrelationId } from './context';
import { AppError, BadRequestError, NotFoundError, PayloadTooLargeError, ServiceUnavailableError, UnauthorizedError } from './errors';
import { unsupportedEncodingError } from './body-encoding';
import { jsonDepthExceeds, MAX_JSON_DEPTH } from './json-depth';
import { HealthCheck, runHealthChecks } from './health';
import { Logger } from './logger';
import { Metrics } from './metrics';
import { storableText, unstorableMessage, unstorablePath } from './storable-text';
import { errorMessage } from './values';

export type ErrorStyle = 'public' | 'internal';

export interface HttpAppOptions {
  logger: Logger;
  metrics: Metrics;
  health: HealthCheck[];
  /** `public`: {"error": {status, name, message, details}}; `internal`: {error: code, message, details}. */
  errorStyle: ErrorStyle;
  /** Limit for JSON bodies, e.g. `1mb`. */
  bodyLimit?: string | number;
  /** Prefixes under which /_health and /metrics are also served (the public API uses `/api`). */
  aliasPrefixes?: string[];
  /** METRICS_TOKEN (runtime contract): when set, /metrics asks for `Authorization: Bearer <token>`. */
  metricsToken?: string;
  /**
   * Paths whose body is a file streamed to the route, never parsed as JSON nor refused for its type
   * (the public API's document import, which needs a service credential, so no cross-site form can reach it).
   */
  rawBodyPaths?: readonly string[];
}

/** Retry-After of a 503 whose error gives no retry_after (a dependency down: the broker, the router). */
export const DEFAULT_RETRY_AFTER_SECONDS = 5;

/** Writes one error in the style of the service (on an express response or a bare node:http one). */
export function sendError(res: ServerResponse, style: ErrorStyle, err: AppError): void {
  if (res.headersSent) return;
  const body = errorBody(style, err);
  // RFC 9110 10.2.3: a 429 or 503 that knows when to come back says so in the header too.
  const retryAfter = err.details['retry_after'];
  if ((err.status === 429 || err.status === 503) && typeof retryAfter === 'number' && retryAfter > 0) res.setHeader('Retry-After', String(Math.ceil(retryAfter)));
  // A 503 that does not know (a broker or service it needs is down) still tells clients when to try again.
  else if (err.status === 503) res.setHeader('Retry-After', String(DEFAULT_RETRY_AFTER_SECONDS));
  sendJson(res, err.status, body);
}

/** A JSON answer written as express's res.json writes it (no ETag: see createHttpApp). */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

interface BodyParserError {
  type?: string;
  status?: number;
  code?: string;
  errno?: number;
  field?: string;
}

/** Codes of node:zlib's errors (gzip and deflate: Z_*, brotli: ERR__ERROR_* and ERR_BROTLI_*). */
const ZLIB_CODE = /^(Z_[A-Z_]+|ERR__ERROR_[A-Z0-9_]+|ERR_BROTLI_[A-Z_]+)$/;

/** Maps errors from body parsers and multer onto the hierarchy; undefined when not one of theirs. */
function fromParserError(err: unknown): AppError | undefined {
  const e = err as BodyParserError | null;
  if (!e || typeof e !== 'object') return undefined;
  if (e.type === 'entity.parse.failed') return new BadRequestError('Malformed JSON body', { errors: ['body is not valid JSON'] });
  if (e.type === 'entity.too.large' || e.type === 'parameters.too.many' || e.code === 'LIMIT_FILE_SIZE') {
    return new PayloadTooLargeError('Request body is too large');
  }
  // A compressed body that does not inflate: body-parser passes zlib's error on as a 400 with no type.
  if (e.status === 400 && typeof e.errno === 'number' && typeof e.code === 'string' && ZLIB_CODE.test(e.code)) {
    return BadRequestError.withErrors('Request body could not be decompressed', ['the body does not match its Content-Encoding']);
  }
  // A path parameter that is not valid percent-encoding (the router's decodeParam): the caller's doing, not a 500.
  if (err instanceof URIError && e.status === 400) return BadRequestError.withErrors('Malformed path', ['a path segment is not valid percent-encoding']);
  if (e.type === 'encoding.unsupported') return unsupportedEncodingError(String((err as { encoding?: unknown }).encoding ?? ''));
  if (e.type === 'charset.unsupported') {
    return new AppError(415, 'UnsupportedMediaTypeError', 'Unsupported body encoding', {}, 'unsupported_media_type');
  }
  if (typeof e.code === 'string' && e.code.startsWith('LIMIT_')) {
    return new BadRequestError(`Upload rejected: ${e.code.toLowerCase()}`, { field: e.field });
  }
  if (typeof e.status === 'number' && e.status >= 400 && e.status < 500 && e.type) {
    // request.aborted, request.size.invalid and the like: all the caller's doing, all 400.
    return new BadRequestError('Invalid request body', {}, 'invalid_body');
  }
  return undefined;
}

/** SQLSTATEs of a lost or refused database connection: class 08 and the shutdown/startup codes of class 57P. */
const CONNECTION_SQLSTATE = /^(08...|57P0[1-3])$/;
const CONNECTION_ERRNO = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT']);
const CONNECTION_MESSAGE = /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended unexpectedly)/;

/**
 * The database connection was killed or refused (pg_terminate_backend, a
 * restart, a pool that cannot connect): not a bug of the request but a
 * dependency briefly down, so a 503 with Retry-After rather than a 500.
 * TypeORM wraps pg's error as `driverError`.
 */
export function isDatabaseConnectionError(err: unknown): boolean {
  for (const e of [err, (err as { driverError?: unknown } | null)?.driverError]) {
    if (!e || typeof e !== 'object') continue;
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (CONNECTION_SQLSTATE.test(code) || CONNECTION_ERRNO.has(code))) return true;
    const message = (e as { message?: unknown }).message;
    if (typeof message === 'string' && CONNECTION_MESSAGE.test(message)) return true;
  }
  return false;
}

export function errorMiddleware(style: ErrorStyle, logger: Logger) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction): void => respondWithError(res, style, logger, err, { method: req.method, path: req.path });
}

/** The body an error is answered with, in the style of the service (sendError writes it). */
export function errorBody(style: ErrorStyle, err: AppError): Record<string, unknown> {
  return style === 'public' ? { error: { status: err.status, name: err.name, message: err.message, details: err.details } } : { error: err.code, message: err.message, details: err.details };
}

/**
 * What an error thrown while serving a request is answered as: an AppError
 * (or a body parser's error) as itself, a lost database as 503, anything else
 * as 500 with an error id that is logged with the stack and never sent.
 * Logs as respondWithError does; routes answering several outcomes in one
 * response (the router's job batches) use it per outcome.
 */
export function appErrorOf(logger: Logger, err: unknown, where: { method: string; path: string }): AppError {
  if (err instanceof AppError) {
    if (err.status >= 500) logger.warn('request failed', { status: err.status, error: err.message, path: where.path });
    return err;
  }
  const parsed = fromParserError(err);
  if (parsed) return parsed;
  if (isDatabaseConnectionError(err)) {
    logger.warn('request failed: database connection lost', { ...where, error: errorMessage(err) });
    return new ServiceUnavailableError('The database is unavailable; try again shortly', {}, 'database_unavailable');
  }
  const errorId = randomUUID();
  logger.error('unexpected error', { errorId, ...where, error: errorMessage(err), stack: err instanceof Error ? err.stack : undefined });
  return new AppError(500, 'InternalServerError', 'An unexpected error occurred', { errorId }, 'internal_error');
}

/** The answer to an error thrown while serving a request (see appErrorOf). */
export function respondWithError(res: ServerResponse, style: ErrorStyle, logger: Logger, err: unknown, where: { method: string; path: string }): void {
  sendError(res, style, appErrorOf(logger, err, where));
}

const JSON_BODY_TYPES = ['application/json', 'application/*+json'];

function isJsonBody(req: IncomingMessage): boolean {
  return !req.headers['content-type'] || Boolean((req as Request).is(JSON_BODY_TYPES));
}

/**
 * A text/plain body is refused, not read as JSON (issue #13): it is the one
 * type a page on another origin can POST without a CORS preflight, so reading
 * it as JSON opened every JSON route to cross-site requests.
 */
const refuseTextPlain: RequestHandler = (req, _res, next) => {
  if (!req.is('text/plain')) return next();
  next(
    new AppError(
      415,
      'UnsupportedMediaTypeError',
      'Request bodies are JSON: send them with Content-Type: application/json',
      { errors: ['Content-Type text/plain is not accepted'] },
      'unsupported_media_type',
    ),
  );
};

/** Refuses JSON nested deeper than MAX_JSON_DEPTH before it is parsed: code that walks a body recursively would overflow the stack (500). */
function verifyJsonDepth(_req: IncomingMessage, _res: unknown, raw: Buffer): void {
  if (jsonDepthExceeds(raw, MAX_JSON_DEPTH)) {
    throw BadRequestError.withErrors('Request body is nested too deeply', [`JSON may nest objects and arrays ${MAX_JSON_DEPTH} levels deep`]);
  }
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** Checks `Authorization: Bearer <token>` in constant time (the hashes have one length whatever was sent). */
function bearerMatches(req: Request, token: string): boolean {
  const header = req.header('authorization') ?? '';
  const match = /^Bearer\s+(\S+)$/i.exec(header);
  return match !== null && timingSafeEqual(sha256(match[1]!), sha256(token));
}

function routeLabel(req: Request): string {
  const route = (req as Request & { route?: { path?: unknown } }).route;
  if (route && typeof route.path === 'string') return `${req.baseUrl}${route.path}`;
  return 'unmatched';
}

/**
 * Text PostgreSQL cannot store (NUL, lone surrogates) would fail at a query as
 * a 500 wherever it reaches one; it is refused here, once, for every route: a
 * path holding an encoded NUL names nothing (404), a JSON body or query
 * string holding such text is 400 naming where (never the value).
 */
const refuseUnstorableText: RequestHandler = (req, _res, next) => {
  if (/%00/.test(req.path) || !storableText(safeDecode(req.path))) return next(new NotFoundError(`Cannot ${req.method} ${req.path}`));
  const bad = unstorablePath(req.body) ?? unstorablePath({ ...(req.query as Record<string, unknown>) }, 'query');
  if (bad !== undefined) return next(BadRequestError.withErrors('Invalid request', [unstorableMessage(bad)]));
  next();
};

function safeDecode(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/**
 * Builds the Express app every service uses: correlation ids, access metrics,
 * health and metrics endpoints, JSON parsing, the routes given by `mount`,
 * then 404 and the error body.
 */
export function createHttpApp(options: HttpAppOptions, mount: (app: express.Express) => void): express.Express {
  const { logger, metrics, errorStyle } = options;
  const app = express();
  app.disable('x-powered-by');
  // API responses are dynamic: hashing every JSON body for an ETag cost ~16 % of CPU per LLM call.
  app.set('etag', false);
  app.set('query parser', 'simple');

  // Probes and scrapes are not traced: a span per kubelet probe would bury the requests worth seeing.
  const untraced = new Set(['', ...(options.aliasPrefixes ?? [])].flatMap((p) => [`${p}/_health`, `${p}/metrics`]));
  app.use((req, res, next) => {
    const correlationId = sanitizeCorrelationId(req.header(CORRELATION_HEADER)) ?? newCorrelationId();
    res.setHeader(CORRELATION_HEADER, correlationId);
    const started = process.hrtime.bigint();
    const serve = (span: Span | undefined): void => {
      res.on('finish', () => {
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        const route = routeLabel(req);
        metrics.httpDuration.observe({ method: req.method, route, status_code: String(res.statusCode) }, seconds);
        // 'finish' may fire outside the request's async context: the span's ids are named here.
        const ids = span ? { traceId: span.spanContext().traceId, spanId: span.spanContext().spanId } : {};
        const meta = { method: req.method, path: req.path, status: res.statusCode, ms: Math.round(seconds * 1000), correlationId, ...ids };
        if (res.statusCode >= 500) logger.warn('request', meta);
        else logger.debug('request', meta);
        if (span) {
          span.updateName(`${req.method} ${route}`);
          span.setAttributes({ 'http.route': route, 'http.response.status_code': res.statusCode });
          if (res.statusCode >= 500) markSpanFailed(span, `HTTP ${res.statusCode}`);
          endSpan(span);
        }
      });
      // A request the client abandoned never finishes: its span ends with the connection.
      if (span) res.on('close', () => (res.writableFinished ? undefined : endSpan(span)));
      runWithContext({ correlationId }, next);
    };
    if (untraced.has(req.path)) return serve(undefined);
    // A server span continuing the caller's W3C traceparent (another service, or a client that sends one).
    withIncomingSpan(req.method, 'server', req.headers, { 'http.request.method': req.method, 'url.path': req.path, 'docflow.correlation_id': correlationId }, serve);
  });

  const healthHandler = async (_req: Request, res: Response): Promise<void> => {
    const report = await runHealthChecks(options.health);
    if (report.healthy) res.status(204).end();
    else res.status(503).json({ status: 'unavailable', failing: report.failing });
  };
  const metricsHandler = async (req: Request, res: Response): Promise<void> => {
    if (options.metricsToken && !bearerMatches(req, options.metricsToken)) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="metrics"');
      sendError(res, errorStyle, new UnauthorizedError('Metrics need Authorization: Bearer <METRICS_TOKEN>'));
      return;
    }
    res.setHeader('Content-Type', metrics.contentType);
    res.send(await metrics.render());
  };
  for (const prefix of ['', ...(options.aliasPrefixes ?? [])]) {
    app.get(`${prefix}/_health`, healthHandler);
    app.get(`${prefix}/metrics`, metricsHandler);
  }

  // Bodies are JSON (spec part 4): also when a client sends one with no content type
  // (Python requests given a string); text/plain is refused (issue #13). Raw-body paths take any body.
  const rawPaths = new Set(options.rawBodyPaths ?? []);
  const rawBody = (req: IncomingMessage): boolean => rawPaths.has((req.url ?? '').split('?', 1)[0] ?? '');
  app.use((req, res, next) => (rawBody(req) ? next() : refuseTextPlain(req, res, next)));
  app.use(express.json({ limit: options.bodyLimit ?? '1mb', strict: false, type: (req) => !rawBody(req) && isJsonBody(req), verify: verifyJsonDepth }));
  app.use(refuseUnstorableText);

  mount(app);

  app.use((req, _res, next) => next(new NotFoundError(`Cannot ${req.method} ${req.path}`)));
  app.use(errorMiddleware(errorStyle, logger));
  return app;
}
