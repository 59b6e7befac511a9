import http from 'node:http';
import https from 'node:https';
import { pipeline, type Readable } from 'node:stream';
import zlib from 'node:zlib';
import { OutboundRequestError, configurationError } from './outbound-error';
import { bareHostname } from './url-policy';
import { flattenHeaders } from './response-body';

/** One request/response exchange, without following redirects. */
export interface Hop {
  url: URL;
  /** Host:port is in REST_API_ALLOWED_HOSTS: use the agents without the address guard. */
  exempt: boolean;
  method: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
}

export type HopResult =
  | { kind: 'redirect'; status: number; location: string }
  | {
      kind: 'final';
      status: number;
      reason: string | undefined;
      headers: Record<string, string>;
      bytes: Buffer;
    };

export interface HopAgents {
  http: { guarded: http.Agent; exempt: http.Agent };
  https: { guarded: https.Agent; exempt: https.Agent };
}

export interface HopContext {
  agents: HopAgents;
  maxResponseBytes: number;
  /** Aborted with the timeout OutboundRequestError as its reason. */
  signal: AbortSignal;
}

const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

const NON_RETRYABLE_NETWORK_CODE = /^(ERR_TLS|ERR_SSL|CERT_|DEPTH_ZERO|SELF_SIGNED|UNABLE_TO_|HPE_|ERR_INVALID)/;

function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  const code: unknown = error.code;
  return typeof code === 'string' ? code : undefined;
}

function networkError(error: unknown, target: string): OutboundRequestError {
  if (error instanceof OutboundRequestError) return error;
  const code = errorCode(error);
  const detail = code ?? (error instanceof Error ? error.message : 'unknown error');
  return new OutboundRequestError('network', `Network error contacting ${target}: ${detail}`, {
    retryable: code === undefined || !NON_RETRYABLE_NETWORK_CODE.test(code),
    cause: error,
  });
}

function tooLarge(limit: number): OutboundRequestError {
  return new OutboundRequestError('too_large', `Response body exceeds the ${limit} byte limit`);
}

function decodedStream(response: http.IncomingMessage, onError: (error: unknown) => void): Readable {
  const encoding = (response.headers['content-encoding'] ?? '').trim().toLowerCase();
  let decoder: zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress | undefined;
  if (encoding === 'gzip' || encoding === 'x-gzip') decoder = zlib.createGunzip();
  else if (encoding === 'deflate') decoder = zlib.createInflate();
  else if (encoding === 'br') decoder = zlib.createBrotliDecompress();
  if (decoder === undefined) return response;
  return pipeline(response, decoder, (error) => {
    if (error) onError(error);
  });
}

function pickAgent(hop: Hop, agents: HopAgents): http.Agent {
  const pair = hop.url.protocol === 'https:' ? agents.https : agents.http;
  return hop.exempt ? pair.exempt : pair.guarded;
}

/**
 * Sends one request. Redirect responses come back unread as `redirect`;
 * anything else is read to the end (decompressed, capped at
 * maxResponseBytes). Fails with an OutboundRequestError only.
 */
export function sendOnce(hop: Hop, context: HopContext): Promise<HopResult> {
  const { signal, maxResponseBytes } = context;
  const target = hop.url.host;
  return new Promise<HopResult>((resolve, reject) => {
    let settled = false;
    let request: http.ClientRequest | undefined;
    let response: http.IncomingMessage | undefined;

    const finish = (): boolean => {
      if (settled) return false;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      return true;
    };
    const fail = (error: unknown): void => {
      if (!finish()) return;
      response?.destroy();
      request?.destroy();
      reject(networkError(error, target));
    };
    const onAbort = (): void => fail(signal.reason);

    if (signal.aborted) {
      fail(signal.reason);
      return;
    }
    signal.addEventListener('abort', onAbort, { once: true });

    const transport = hop.url.protocol === 'https:' ? https : http;
    try {
      request = transport.request({
        protocol: hop.url.protocol,
        hostname: bareHostname(hop.url),
        port: hop.url.port === '' ? undefined : Number(hop.url.port),
        path: `${hop.url.pathname}${hop.url.search}`,
        method: hop.method,
        headers: hop.headers,
        agent: pickAgent(hop, context.agents),
      });
    } catch (error) {
      const detail = errorCode(error) ?? 'invalid request';
      fail(configurationError(`Request could not be built: ${detail}`));
      return;
    }

    request.on('error', fail);
    request.on('response', (incoming) => {
      response = incoming;
      incoming.on('error', fail);
      const status = incoming.statusCode ?? 0;
      const location = incoming.headers.location;
      if (REDIRECT_STATUSES.has(status) && location !== undefined && location !== '') {
        if (!finish()) return;
        incoming.destroy();
        resolve({ kind: 'redirect', status, location });
        return;
      }
      const declared = Number(incoming.headers['content-length']);
      if (Number.isFinite(declared) && declared > maxResponseBytes) {
        fail(tooLarge(maxResponseBytes));
        return;
      }
      const chunks: Buffer[] = [];
      let total = 0;
      const body = decodedStream(incoming, fail);
      body.on('data', (chunk: Buffer) => {
        total += chunk.length;
        if (total > maxResponseBytes) fail(tooLarge(maxResponseBytes));
        else chunks.push(chunk);
      });
      body.on('end', () => {
        if (!finish()) return;
        resolve({
          kind: 'final',
          status,
          reason: incoming.statusMessage,
          headers: flattenHeaders(incoming.headers),
          bytes: Buffer.concat(chunks, total),
        });
      });
    });
    request.end(hop.body);
  });
}
