import type { IncomingMessage, RequestListener } from 'node:http';
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

const JSON_UTF8 = /^application\/json\s*(?:;\s*charset="?utf-8"?\s*)?$/i;

/**
 * One JSON POST route served by node:http ahead of express, for a hot path
 * that every call of another service waits for (Data Shield's tokenise):
 * express's per-request work (its router, body-parser, the middleware
 * stack) was about a third of the gateway's CPU per shielded call. The lane
 * keeps what createHttpApp gives a request: the correlation id (answered in
 * the header, current while the handler runs), the request duration metric,
 * the body limit, the depth and storable-text checks on the body, the same
 * 400/413 answers, and errors in the service's style (an unexpected one as
 * 500 with a logged error id). Anything else goes to `fallback` untouched:
 * another method or path, a query string, a body that is not UTF-8 JSON
 * (text/plain gets its 415 there), and every request while tracing is on
 * (express's stack makes the server spans).
 */
export function jsonLane(options: JsonLaneOptions): RequestListener {
  const route = options.path;
  return (req, res) => {
    const type = req.headers['content-type'];
    if (req.method !== 'POST' || req.url !== route || (type !== undefined && !JSON_UTF8.test(type)) || tracingEnabled()) {
      options.fallback(req, res);
      return;
    }
    const correlationId = sanitizeCorrelationId(req.headers[CORRELATION_HEADER]) ?? newCorrelationId();
    res.setHeader(CORRELATION_HEADER, correlationId);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      options.metrics.httpDuration.observe({ method: 'POST', route, status_code: String(res.statusCode) }, seconds);
      const meta = { method: 'POST', path: route, status: res.statusCode, ms: Math.round(seconds * 1000), correlationId };
      if (res.statusCode >= 500) options.logger.warn('request', meta);
      else options.logger.debug('request', meta);
    });
    const fail = (err: unknown) => respondWithError(res, options.errorStyle, options.logger, err, { method: 'POST', path: route });
    readBody(req, options.maxBodyBytes).then(
      (raw) =>
        runWithContext({ correlationId }, async () => {
          try {
            sendJson(res, 200, await options.handle(req.headers, parseJson(raw)));
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
  };
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
  if (raw.length === 0) return undefined;
  if (jsonDepthExceeds(raw, MAX_JSON_DEPTH)) throw BadRequestError.withErrors('Request body is nested too deeply', [`JSON may nest objects and arrays ${MAX_JSON_DEPTH} levels deep`]);
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8')) as unknown;
  } catch {
    throw new BadRequestError('Malformed JSON body', { errors: ['body is not valid JSON'] });
  }
  const bad = unstorablePath(body);
  if (bad !== undefined) throw BadRequestError.withErrors('Invalid request', [unstorableMessage(bad)]);
  return body;
}
