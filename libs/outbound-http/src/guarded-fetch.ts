import http from 'node:http';
import https from 'node:https';
import { createGuardedLookup, type HostResolver, systemResolver } from './guarded-lookup';
import { OutboundRequestError } from './outbound-error';
import { assertUrlAllowed } from './url-policy';

export interface GuardedFetchOptions {
  /** REST_API_ALLOWED_HOSTS: `host:port` entries exempt from the address check. */
  allowedHosts: readonly string[];
  /** Bytes one response may stream in all (a long SSE stream included); past it the stream fails. Default 10 MiB. */
  maxResponseBytes?: number;
  resolveHost?: HostResolver;
}

type FetchInput = string | URL | { url: string };

/**
 * A `fetch` for libraries that take one (the MCP SDK's transports), with the outbound client's rules:
 * http(s) only, no private or loopback address unless its host:port is allowed, the address checked
 * in the socket's own lookup (no DNS rebinding window), redirects never followed, and a cap on the
 * bytes of each response. The response body streams (server-sent events work).
 */
export function createGuardedFetch(options: GuardedFetchOptions): (input: FetchInput, init?: RequestInit) => Promise<Response> {
  const resolve = options.resolveHost ?? systemResolver;
  const cap = options.maxResponseBytes ?? 10 * 1024 * 1024;
  return (input, init = {}) =>
    new Promise<Response>((done, fail) => {
      const target = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      let checked;
      try {
        checked = assertUrlAllowed(target, options.allowedHosts);
      } catch (err) {
        fail(err);
        return;
      }
      const url = checked.url;
      const headers: Record<string, string> = {};
      new Headers(init.headers as ConstructorParameters<typeof Headers>[0]).forEach((value, name) => (headers[name] = value));
      const body = typeof init.body === 'string' ? Buffer.from(init.body) : init.body instanceof Uint8Array ? Buffer.from(init.body) : undefined;
      if (body) headers['content-length'] = String(body.length);
      const lib = url.protocol === 'https:' ? https : http;
      const req = lib.request(url, {
        method: init.method ?? 'GET',
        headers,
        lookup: createGuardedLookup(resolve, !checked.exempt),
        ...(init.signal ? { signal: init.signal } : {}),
      });
      req.on('error', fail);
      req.on('response', (res) => {
        const status = res.statusCode ?? 502;
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          if (value === undefined) continue;
          for (const v of Array.isArray(value) ? value : [value]) responseHeaders.append(name, v);
        }
        if (status >= 300 && status < 400) {
          res.resume();
          fail(new OutboundRequestError('http', `HTTP ${status}: redirects are not followed`, { status, retryable: false }));
          return;
        }
        const noBody = status === 204 || status === 304 || (init.method ?? 'GET').toUpperCase() === 'HEAD';
        if (noBody) {
          res.resume();
          done(new Response(null, { status, headers: responseHeaders }));
          return;
        }
        // A web stream over the response, by hand: the consumer may cancel it (an SSE reader closing) while bytes still arrive.
        let seen = 0;
        let finished = false;
        const stream = new ReadableStream<Uint8Array>({
          start(controller) {
            res.on('data', (chunk: Buffer) => {
              if (finished) return;
              seen += chunk.length;
              if (seen > cap) {
                finished = true;
                controller.error(new OutboundRequestError('too_large', `Response body exceeds the ${cap} byte limit`));
                res.destroy();
                return;
              }
              controller.enqueue(new Uint8Array(chunk));
            });
            res.on('end', () => {
              if (!finished) {
                finished = true;
                controller.close();
              }
            });
            res.on('error', (err) => {
              if (!finished) {
                finished = true;
                controller.error(err);
              }
            });
          },
          cancel() {
            finished = true;
            res.destroy();
          },
        });
        done(new Response(stream, { status, headers: responseHeaders }));
      });
      req.end(body);
    });
}
