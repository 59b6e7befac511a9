import { createHash, timingSafeEqual } from 'node:crypto';
import type { DriveNotification } from './drive-provider';

/** Spec 8: a drive watch lasts at most 24 hours... */
export const MAX_WATCH_MS = 24 * 60 * 60 * 1000;
/** ...and is renewed about 2 hours before it expires. */
export const RENEW_BEFORE_MS = 2 * 60 * 60 * 1000;

/** The expiry to ask for: `ttlMs` (default and cap 24 h) from `now`. */
export function watchExpiry(now: Date, ttlMs: number = MAX_WATCH_MS): Date {
  const ttl = Number.isFinite(ttlMs) && ttlMs > 0 ? Math.min(ttlMs, MAX_WATCH_MS) : MAX_WATCH_MS;
  return new Date(now.getTime() + ttl);
}

/** When a watch expiring at `expiresAt` should be renewed: 2 hours before. */
export function renewalDueAt(expiresAt: Date): Date {
  return new Date(expiresAt.getTime() - RENEW_BEFORE_MS);
}

/** True once `now` is within 2 hours of `expiresAt` (or past it). */
export function needsRenewal(expiresAt: Date, now: Date): boolean {
  return now.getTime() >= renewalDueAt(expiresAt).getTime();
}

type HeaderBag = Record<string, string | string[] | undefined>;

function header(headers: HeaderBag, name: string): string | null {
  const raw = headers[name] ?? headers[name.toLowerCase()];
  const value = Array.isArray(raw) ? raw[0] : raw;
  return value === undefined || value === '' ? null : value;
}

/**
 * The notification a Google push carries in its headers (body is empty):
 * `X-Goog-Channel-ID`, `X-Goog-Channel-Token`, `X-Goog-Resource-ID`,
 * `X-Goog-Resource-State`, `X-Goog-Message-Number`. Null when the channel id
 * or state is missing (not a Drive push). Node lower-cases header names.
 */
export function parsePushHeaders(headers: HeaderBag): DriveNotification | null {
  const channelId = header(headers, 'x-goog-channel-id');
  const resourceState = header(headers, 'x-goog-resource-state');
  if (!channelId || !resourceState) return null;
  const number = Number(header(headers, 'x-goog-message-number'));
  return {
    channelId,
    channelToken: header(headers, 'x-goog-channel-token'),
    resourceId: header(headers, 'x-goog-resource-id'),
    resourceState,
    messageNumber: Number.isSafeInteger(number) ? number : null,
  };
}

/**
 * Compares a source's stored channel token with the one a notification
 * carries in constant time (both hashed first, so lengths do not leak).
 */
export function channelTokenMatches(expected: string, given: string | null): boolean {
  if (given === null) return false;
  const a = createHash('sha256').update(expected, 'utf8').digest();
  const b = createHash('sha256').update(given, 'utf8').digest();
  return timingSafeEqual(a, b) && expected.length > 0;
}
