import { isPlainObject } from '@docflow/service-kit';

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

const MAX_MESSAGE = 500;

export function clip(text: string, max = MAX_MESSAGE): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

export interface ErrorBody {
  /** The service's error code, or one derived from the status. */
  code: string;
  message: string;
  details: Record<string, unknown>;
}

/**
 * Reads the spec's two error shapes: the internal `{error: code, message,
 * details}` (spec 7) and the public `{error: {status, name, message,
 * details}}`; anything else gives a code derived from the status.
 */
export function readErrorBody(status: number, data: unknown): ErrorBody {
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

/** Seconds to wait before retrying: `details.retry_after` of the body, else a numeric Retry-After header. */
export function retryAfterOf(details: Record<string, unknown>, header: unknown): number | undefined {
  const fromBody = details.retry_after;
  if (typeof fromBody === 'number' && Number.isFinite(fromBody) && fromBody >= 0) return fromBody;
  if (typeof header === 'string' && /^\d+$/.test(header.trim())) return Number(header.trim());
  return undefined;
}

/** A body for an error message: the text, cut at `max` characters. */
export function bodyText(data: unknown, max = MAX_MESSAGE): string {
  return clip(typeof data === 'string' ? data : JSON.stringify(data ?? ''), max);
}
