import type { IncomingHttpHeaders } from 'node:http';
import { TextDecoder } from 'node:util';

/** Response headers with lower-case names; repeated headers joined by ", ". */
export function flattenHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

function charsetOf(contentType: string | undefined): string {
  const match = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? '');
  return match?.[1]?.toLowerCase() ?? 'utf-8';
}

export function isJsonMediaType(contentType: string | undefined): boolean {
  const type = mediaType(contentType);
  return type === 'application/json' || type === 'text/json' || type.endsWith('+json');
}

/** Decodes the body with the declared charset, falling back to UTF-8 for unknown labels. */
export function decodeText(bytes: Buffer, contentType: string | undefined): string {
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(charsetOf(contentType));
  } catch {
    decoder = new TextDecoder('utf-8');
  }
  return decoder.decode(bytes);
}

/**
 * The parsed JSON value when the response declares JSON (or declares no type
 * and parses as JSON), otherwise the text. Malformed JSON stays text.
 */
export function parseBody(text: string, contentType: string | undefined): unknown {
  const declaredJson = isJsonMediaType(contentType);
  if (!declaredJson && contentType !== undefined && contentType.trim() !== '') return text;
  if (text.trim() === '') return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

const ERROR_BODY_LIMIT = 2048;

/** `HTTP 404: {"error":"nope"}`, the body cut to about 2 KB. */
export function httpErrorMessage(status: number, text: string, reason: string | undefined): string {
  const shown = text.length > ERROR_BODY_LIMIT ? `${text.slice(0, ERROR_BODY_LIMIT)}…` : text;
  return `HTTP ${status}: ${shown === '' ? (reason ?? '') : shown}`.trimEnd();
}
