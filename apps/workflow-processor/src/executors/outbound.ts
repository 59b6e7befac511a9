import { isOutboundRequestError, type OutboundRequestError } from '@docflow/outbound-http';
import type { ErrorType } from '@docflow/contracts';
import { NodeFailure } from './executor';

/** The error type an outbound failure is recorded with (spec 2.7 rule 1 and 2). */
export function errorTypeOfOutbound(err: OutboundRequestError): ErrorType {
  switch (err.kind) {
    case 'configuration':
      return 'configuration_error';
    case 'timeout':
      return 'timeout';
    case 'network':
    case 'dns':
      return 'network_error';
    case 'http':
    case 'too_large':
      return 'http_error';
    default: {
      const never: never = err.kind;
      throw new Error(`unknown outbound error kind ${String(never)}`);
    }
  }
}

/** Turns an outbound client error into the node's failure (`HTTP <status>: <body>` for non-2xx); other errors pass through. */
export function outboundFailure(err: unknown): unknown {
  if (!isOutboundRequestError(err)) return err;
  // The client's `retryable`: timeouts, network and DNS failures, HTTP 408/425/429/5xx; never a configuration error.
  return new NodeFailure(errorTypeOfOutbound(err), err.message, undefined, err.retryable);
}

/**
 * A positive number of seconds from a config value (a number or a numeric
 * string after templating), within the processor's limits (README, Limits):
 * the value validation could not check when it was a template.
 */
export function secondsOf(value: unknown, name: string, fallback: number, bounds: { min?: number; max?: number } = {}): number {
  if (value === undefined || value === null || value === '') return fallback;
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : Number.NaN;
  if (!Number.isFinite(n) || n <= 0) throw new NodeFailure('configuration_error', `${name} must be a positive number of seconds`);
  if (bounds.min !== undefined && n < bounds.min) throw new NodeFailure('configuration_error', `${name} must be at least ${bounds.min} seconds`);
  if (bounds.max !== undefined && n > bounds.max) throw new NodeFailure('configuration_error', `${name} must be at most ${bounds.max} seconds`);
  return n;
}

/** Header values after templating: strings, numbers and booleans are sent as text. */
export function headersOf(value: unknown): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw new NodeFailure('configuration_error', 'headers must be an object');
  const out: Record<string, string> = {};
  for (const [name, v] of Object.entries(value as Record<string, unknown>)) {
    if (typeof v === 'string') out[name] = v;
    else if (typeof v === 'number' || typeof v === 'boolean') out[name] = String(v);
    else throw new NodeFailure('configuration_error', `header ${name} must be a string`);
  }
  return out;
}

/** Headers that describe the exchange and never hold a secret. */
const PLAIN_HEADERS: ReadonlySet<string> = new Set(['accept', 'accept-language', 'content-type', 'user-agent']);

/**
 * The headers of a node that must not follow a redirect to another origin.
 * The public API binds a credential's fields into the config before the job
 * is sent, so the processor cannot tell which header holds one: every header
 * a node sets counts as secret, except the few that describe the exchange.
 */
export function sensitiveHeadersOf(headers: Record<string, string>): string[] {
  return Object.keys(headers).filter((name) => !PLAIN_HEADERS.has(name.trim().toLowerCase()));
}

export function urlOf(value: unknown, name: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw new NodeFailure('configuration_error', `${name} must resolve to a non-empty URL`);
  return value.trim();
}
