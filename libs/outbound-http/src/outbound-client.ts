import http from 'node:http';
import https from 'node:https';
import { createGuardedLookup, systemResolver, type HostResolver } from './guarded-lookup';
import { OutboundRequestError, configurationError } from './outbound-error';
import { decodeText, httpErrorMessage, parseBody } from './response-body';
import { sendOnce, type Hop, type HopAgents } from './send-once';
import { AllowedHosts, assertUrlAllowed } from './url-policy';

export interface OutboundClientOptions {
  /** REST_API_ALLOWED_HOSTS: `host:port` entries exempt from the address check. */
  allowedHosts?: readonly string[];
  /** Default 10 MiB; bodies past it fail with kind `too_large`. */
  maxResponseBytes?: number;
  /** Default 30 000 ms; covers every redirect hop and the body read. */
  defaultTimeoutMs?: number;
  /** Default 5. */
  maxRedirects?: number;
  userAgent?: string;
  /** Name resolution; defaults to the system resolver (dns.lookup). For tests. */
  resolveHost?: HostResolver;
}

export interface OutboundRequestOptions {
  url: string;
  /** Default GET. */
  method?: string;
  headers?: Record<string, string>;
  /** Sent as JSON for POST, PUT and PATCH; ignored for other methods. */
  body?: unknown;
  timeoutMs?: number;
  /**
   * Names of `headers` that carry a secret (an API key from a credential,
   * say): like Authorization, Cookie and Proxy-Authorization they are not
   * sent on once a redirect leaves the request's origin. Case-insensitive.
   */
  sensitiveHeaders?: readonly string[];
}

export interface OutboundResponse {
  status: number;
  /** Lower-case names; repeated headers joined by ", ". */
  headers: Record<string, string>;
  /** Parsed JSON when the content is JSON, otherwise the text. */
  body: unknown;
  text: string;
  /** The body as received (for binary content: PDF, images); always set by this client. */
  bytes?: Buffer;
  /** The URL that produced this response, after redirects. */
  url: string;
}

export interface OutboundClient {
  request(options: OutboundRequestOptions): Promise<OutboundResponse>;
}

export const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;
export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_REDIRECTS = 5;
const DEFAULT_USER_AGENT = 'Docflow-Outbound/1.0';

const METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const BODY_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH']);
/** Framing and hop-by-hop headers are the client's business; callers' values are dropped. */
const DROPPED_HEADERS: ReadonlySet<string> = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer', 'expect', 'proxy-connection']);
/** Credentials never follow a redirect to another origin; callers name their own secret headers too. */
const CROSS_ORIGIN_DROPPED: readonly string[] = ['authorization', 'cookie', 'proxy-authorization'];

function positiveInteger(value: number | undefined, fallback: number, name: string): number {
  const chosen = value ?? fallback;
  if (!Number.isFinite(chosen) || chosen <= 0) throw configurationError(`${name} must be a positive number`);
  return chosen;
}

function normaliseMethod(method: string | undefined): string {
  const upper = (method ?? 'GET').trim().toUpperCase();
  if (!METHODS.has(upper)) throw configurationError(`HTTP method "${method ?? ''}" is not supported`);
  return upper;
}

function buildHeaders(input: Record<string, string> | undefined, userAgent: string): Record<string, string> {
  const headers: Record<string, string> = { accept: 'application/json, text/plain;q=0.9, */*;q=0.8', 'user-agent': userAgent };
  for (const [rawName, value] of Object.entries(input ?? {})) {
    const name = rawName.trim().toLowerCase();
    if (DROPPED_HEADERS.has(name) || name.startsWith('proxy-')) continue;
    if (typeof value !== 'string') throw configurationError(`Header "${rawName}" must be a string`);
    headers[name] = value;
  }
  return headers;
}

function encodeBody(method: string, body: unknown, headers: Record<string, string>): Buffer | undefined {
  if (!BODY_METHODS.has(method) || body === undefined) return undefined;
  let json: string | undefined;
  try {
    json = JSON.stringify(body);
  } catch {
    throw configurationError('Request body cannot be encoded as JSON');
  }
  if (json === undefined) return undefined;
  headers['content-type'] ??= 'application/json';
  const bytes = Buffer.from(json, 'utf8');
  headers['content-length'] = String(bytes.length);
  return bytes;
}

/** The request for the next hop, as browsers do it (RFC 9110 15.4); `dropped` headers do not cross origins. */
function redirectHop(previous: Hop, status: number, location: string, dropped: readonly string[]): { url: string; hop: Omit<Hop, 'url' | 'exempt'> } {
  let next: URL;
  try {
    next = new URL(location, previous.url);
  } catch {
    throw new OutboundRequestError('http', `HTTP ${status}: invalid redirect location`, { status, retryable: false });
  }
  const headers = { ...previous.headers };
  let { method, body } = previous;
  const toGet = (status === 303 && method !== 'HEAD') || ((status === 301 || status === 302) && method === 'POST');
  if (toGet) {
    method = 'GET';
    body = undefined;
    delete headers['content-type'];
    delete headers['content-length'];
  }
  if (next.origin !== previous.url.origin) for (const name of dropped) delete headers[name];
  return { url: next.href, hop: { method, headers, body } };
}

function createAgents(resolveHost: HostResolver): HopAgents {
  const guarded = createGuardedLookup(resolveHost, true);
  const open = createGuardedLookup(resolveHost, false);
  return {
    http: { guarded: new http.Agent({ lookup: guarded }), exempt: new http.Agent({ lookup: open }) },
    https: { guarded: new https.Agent({ lookup: guarded }), exempt: new https.Agent({ lookup: open }) },
  };
}

/**
 * The HTTP client for user-controlled URLs (rest_api_task, wait_task). Every
 * hop is validated (scheme, credentials, address); host names are checked at
 * connect time; redirects are followed here, never by a library.
 */
export function createOutboundClient(options: OutboundClientOptions = {}): OutboundClient {
  const allowedHosts = new AllowedHosts(options.allowedHosts ?? []);
  const maxResponseBytes = positiveInteger(options.maxResponseBytes, DEFAULT_MAX_RESPONSE_BYTES, 'maxResponseBytes');
  const defaultTimeoutMs = positiveInteger(options.defaultTimeoutMs, DEFAULT_TIMEOUT_MS, 'defaultTimeoutMs');
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  if (!Number.isInteger(maxRedirects) || maxRedirects < 0) throw configurationError('maxRedirects must be a non-negative integer');
  const userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
  const agents = createAgents(options.resolveHost ?? systemResolver);

  async function request(opts: OutboundRequestOptions): Promise<OutboundResponse> {
    const method = normaliseMethod(opts.method);
    const timeoutMs = positiveInteger(opts.timeoutMs, defaultTimeoutMs, 'timeoutMs');
    const headers = buildHeaders(opts.headers, userAgent);
    const body = encodeBody(method, opts.body, headers);
    const dropped = [...CROSS_ORIGIN_DROPPED, ...(opts.sensitiveHeaders ?? []).map((name) => name.trim().toLowerCase())];
    let checked = assertUrlAllowed(opts.url, allowedHosts);
    let hop: Hop = { url: checked.url, exempt: checked.exempt, method, headers, body };

    const controller = new AbortController();
    const timer = setTimeout(() => {
      controller.abort(new OutboundRequestError('timeout', `Request timed out after ${timeoutMs} ms`));
    }, timeoutMs);
    try {
      for (let redirects = 0; ; redirects += 1) {
        const result = await sendOnce(hop, { agents, maxResponseBytes, signal: controller.signal });
        if (result.kind === 'redirect') {
          if (redirects >= maxRedirects) {
            throw new OutboundRequestError('http', `HTTP ${result.status}: more than ${maxRedirects} redirects`, {
              status: result.status,
              retryable: false,
            });
          }
          const next = redirectHop(hop, result.status, result.location, dropped);
          checked = assertUrlAllowed(next.url, allowedHosts);
          hop = { ...next.hop, url: checked.url, exempt: checked.exempt };
          continue;
        }
        const contentType = result.headers['content-type'];
        const text = decodeText(result.bytes, contentType);
        if (result.status < 200 || result.status > 299) {
          throw new OutboundRequestError('http', httpErrorMessage(result.status, text, result.reason), {
            status: result.status,
          });
        }
        return { status: result.status, headers: result.headers, body: parseBody(text, contentType), text, bytes: result.bytes, url: hop.url.href };
      }
    } finally {
      clearTimeout(timer);
    }
  }

  return { request };
}
