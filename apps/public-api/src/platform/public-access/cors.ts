import type { Request, RequestHandler, Response } from 'express';
import { NotFoundError } from '@docflow/service-kit';
import type { OpenApiRegistry } from '../openapi/registry';
import { originAllowed } from './origins';

/** What one public chat surface lets other sites' pages do. */
export interface PublicCorsPolicy {
  /** Methods the route answers, e.g. `['POST']`; OPTIONS is added. */
  methods: readonly string[];
  /** Request headers a page may send, beyond the CORS-safelisted ones. */
  headers: readonly string[];
  /**
   * The `allowed_origins` of the chatbot or agent the path's `:slug` names;
   * undefined when there is none (or it is inactive): preflights are 404.
   */
  allowedOrigins(slug: string): Promise<readonly string[] | undefined>;
  /** The 404 message of an unknown slug. */
  notFound: string;
}

/** Response headers a page may read: the ones our errors and streams carry. */
const EXPOSED = 'Retry-After, X-Correlation-Id, Content-Type';
/** How long a browser may keep a preflight's answer. */
export const PREFLIGHT_MAX_AGE_SECONDS = 600;

function originOf(req: Request): string | undefined {
  const origin = req.header('origin');
  return origin && origin !== 'null' ? origin : undefined;
}

function allow(res: Response, origin: string): void {
  res.setHeader('Access-Control-Allow-Origin', origin);
  res.setHeader('Access-Control-Expose-Headers', EXPOSED);
}

/**
 * CORS for the public chat routes (issue 18 item 8): a page may call a
 * chatbot or agent from another site when its Origin matches the
 * resource's `allowed_origins` (spec 2.12's rule: empty accepts any origin;
 * hostnames and `*.domain` patterns). Allowed origins are echoed, never `*`,
 * with `Vary: Origin`; others get no CORS header, so the browser refuses to
 * let the page read the answer (and the chat routes refuse the call, 403).
 * No credentials mode: keys travel in headers, never cookies.
 */
export function publicCors(policy: PublicCorsPolicy): { preflight: RequestHandler; headers: RequestHandler } {
  const methods = [...new Set([...policy.methods, 'OPTIONS'])].join(', ');
  const headers = policy.headers.join(', ');

  const preflight: RequestHandler = async (req, res, next) => {
    try {
      const allowed = await policy.allowedOrigins(String(req.params['slug']));
      if (allowed === undefined) throw new NotFoundError(policy.notFound);
      res.setHeader('Vary', 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers');
      const origin = originOf(req);
      if (origin !== undefined && originAllowed(allowed, origin, undefined)) {
        allow(res, origin);
        res.setHeader('Access-Control-Allow-Methods', methods);
        res.setHeader('Access-Control-Allow-Headers', headers);
        res.setHeader('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE_SECONDS));
      }
      res.status(204).end();
    } catch (err) {
      next(err);
    }
  };

  /** On the route itself, before its guards: errors (401, 403, 429) are readable by an allowed page too. */
  const actual: RequestHandler = async (req, res, next) => {
    const origin = originOf(req);
    if (origin === undefined) return next();
    res.setHeader('Vary', 'Origin');
    try {
      const allowed = await policy.allowedOrigins(String(req.params['slug']));
      if (allowed !== undefined && originAllowed(allowed, origin, undefined)) allow(res, origin);
      next();
    } catch (err) {
      next(err);
    }
  };

  return { preflight, headers: actual };
}

/** The OpenAPI entry of a public route's preflight (OPTIONS). */
export function describePreflight(openapi: OpenApiRegistry, path: string, tag: string, policy: Pick<PublicCorsPolicy, 'methods' | 'headers'>): void {
  openapi.add('options', path, {
    summary: `CORS preflight: ${policy.methods.join(', ')} from pages of the allowed_origins`,
    description:
      'For an Origin the resource’s `allowed_origins` accepts (empty: any), 204 with Access-Control-Allow-Origin (the origin itself), -Methods, ' +
      `-Headers (${policy.headers.join(', ')}) and -Max-Age; for any other origin 204 without them, so the browser does not send the call. Vary: Origin.`,
    tags: [tag],
    auth: 'none',
    responses: { 204: { description: 'Preflight answered' } },
    errors: [404],
  });
}

/** What a chat route's description says of its event-stream form. */
export const CHAT_STREAM_DESCRIPTION =
  'With `Accept: text/event-stream` (or `?stream=true`) the answer comes as server-sent events once the checks pass (refusals stay JSON with their status): `start` (`{session_id}`), keep-alive comments, `delta` (`{text}`) pieces of the answer, then `done` with the JSON body below; a failure after `start` is an `error` event with the error body. Pages of other sites may call it when the resource’s `allowed_origins` accepts their Origin (CORS).';
