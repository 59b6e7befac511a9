import { createHmac, timingSafeEqual } from 'node:crypto';

export interface SignUrlOptions {
  /** Origin plus optional path prefix, e.g. PUBLIC_BASE_URL or `http://127.0.0.1:1337/api`. */
  baseUrl: string;
  /** Path below baseUrl, e.g. `/documents/global/download/2026/05/<uuid>.pdf`; may carry a query. */
  path: string;
  expiresInSeconds?: number;
  secret: string;
  /** Current time in milliseconds (tests); defaults to Date.now(). */
  now?: number;
}

export type SignedUrlVerdict = 'valid' | 'expired' | 'invalid';

const EXPIRES = 'expires';
const SIGNATURE = 'signature';
/** Parses paths given without an origin; never used in a result. */
const PLACEHOLDER_ORIGIN = 'http://signed-url.invalid';
const SIGNATURE_BYTES = 32;

function checkSecret(secret: string): void {
  if (typeof secret !== 'string' || secret.length === 0) throw new Error('signed URL secret must be a non-empty string');
}

/**
 * What is signed: the URL's normalised pathname (the full path, base prefix
 * included, as the server will see it), every query parameter other than
 * `signature` sorted by name (so `expires` and any parameter the signer added
 * are covered), joined by newlines. The HTTP method is not part of it.
 */
function canonical(url: URL): string {
  const params = [...url.searchParams.entries()]
    .filter(([name]) => name !== SIGNATURE)
    .sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`);
  return `${url.pathname}\n${params.join('&')}`;
}

function hmac(secret: string, data: string): Buffer {
  return createHmac('sha256', secret).update(data, 'utf8').digest();
}

/** Joins baseUrl and path by concatenation, so a base path prefix (`/api`) is kept. */
function joinUrl(baseUrl: string, path: string): URL {
  const base = baseUrl.replace(/\/+$/, '');
  const rest = path.startsWith('/') ? path : `/${path}`;
  return new URL(`${base}${rest}`);
}

/**
 * An absolute URL to baseUrl + path that verifySignedUrl accepts until
 * `expires` (Unix seconds) with the same secret: the query gains `expires`
 * and `signature` (HMAC-SHA256, base64url).
 */
export function signUrl(options: SignUrlOptions): string {
  const { baseUrl, path, expiresInSeconds = 3600, secret, now = Date.now() } = options;
  checkSecret(secret);
  if (!Number.isFinite(expiresInSeconds) || expiresInSeconds <= 0) {
    throw new RangeError(`expiresInSeconds must be a positive number, got ${expiresInSeconds}`);
  }
  const url = joinUrl(baseUrl, path);
  if (url.searchParams.has(EXPIRES) || url.searchParams.has(SIGNATURE)) {
    throw new Error(`path must not already carry "${EXPIRES}" or "${SIGNATURE}"`);
  }
  const expires = Math.floor(now / 1000) + Math.ceil(expiresInSeconds);
  url.searchParams.set(EXPIRES, String(expires));
  url.searchParams.set(SIGNATURE, hmac(secret, canonical(url)).toString('base64url'));
  return url.toString();
}

/** True when the raw path (before normalisation) holds a `.` or `..` segment, plain or percent-encoded. */
function hasDotSegment(raw: string): boolean {
  const withoutOrigin = raw.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '');
  const pathPart = withoutOrigin.split(/[?#]/, 1)[0] ?? '';
  return pathPart.split('/').some((segment) => /^(?:\.|%2e){1,2}$/i.test(segment));
}

/**
 * Checks a URL made by signUrl. Accepts an absolute URL or a path with its
 * query (as in Express's `req.originalUrl`). A bad or missing signature, or
 * any change to the path, query or `expires`, is 'invalid'; a correct
 * signature past its `expires` is 'expired'. Signatures are compared in
 * constant time.
 */
export function verifySignedUrl(urlOrPathWithQuery: string, secret: string, now: number = Date.now()): SignedUrlVerdict {
  checkSecret(secret);
  let url: URL;
  try {
    url = new URL(urlOrPathWithQuery, PLACEHOLDER_ORIGIN);
  } catch {
    return 'invalid';
  }
  if (hasDotSegment(urlOrPathWithQuery)) return 'invalid';
  const expiresValues = url.searchParams.getAll(EXPIRES);
  const signatureValues = url.searchParams.getAll(SIGNATURE);
  if (expiresValues.length !== 1 || signatureValues.length !== 1) return 'invalid';
  const expiresText = expiresValues[0] ?? '';
  const signatureText = signatureValues[0] ?? '';
  if (!/^\d{1,15}$/.test(expiresText) || !/^[A-Za-z0-9_-]+$/.test(signatureText)) return 'invalid';

  const given = Buffer.from(signatureText, 'base64url');
  // Only the canonical encoding: no second spelling of the same bytes is accepted.
  if (given.length !== SIGNATURE_BYTES || given.toString('base64url') !== signatureText) return 'invalid';
  const expected = hmac(secret, canonical(url));
  if (!timingSafeEqual(given, expected)) return 'invalid';
  return Number(expiresText) * 1000 <= now ? 'expired' : 'valid';
}
