/**
 * The errors every drive provider throws, one class per thing a caller does
 * about it. `kind` is the discriminant callers switch over; the public API
 * maps them (spec 7): `invalid_path` 400, `not_found` 404, `needs_reconnect`
 * makes the source inactive with `error_message` (spec 3.6), `retryable`
 * waits `retryAfterMs` and tries again, `page_token_expired` resyncs from a
 * new start page token, `oauth` 400 on the callback, `unsupported` 400/failed
 * node, `protocol` 502-like (the drive answered something unexpected).
 */
export type DriveErrorKind = 'invalid_path' | 'not_found' | 'needs_reconnect' | 'retryable' | 'page_token_expired' | 'oauth' | 'unsupported' | 'protocol';

export abstract class DriveError extends Error {
  abstract readonly kind: DriveErrorKind;
}

/** A folder or file id that is absolute, climbs with `..`, or leads through a link out of the user's drive (local provider). */
export class DrivePathError extends DriveError {
  override readonly name = 'DrivePathError';
  readonly kind = 'invalid_path' as const;
}

export class DriveNotFoundError extends DriveError {
  override readonly name = 'DriveNotFoundError';
  readonly kind = 'not_found' as const;
}

/** The user's grant is missing, revoked or expired beyond refresh: they must connect again. */
export class DriveReconnectError extends DriveError {
  override readonly name = 'DriveReconnectError';
  readonly kind = 'needs_reconnect' as const;
}

/** Rate limited or the drive failed (429, 5xx, network): worth trying again after `retryAfterMs`. */
export class DriveRetryableError extends DriveError {
  override readonly name = 'DriveRetryableError';
  readonly kind = 'retryable' as const;

  constructor(
    message: string,
    readonly retryAfterMs: number,
    readonly status?: number,
  ) {
    super(message);
  }
}

/** The saved page token is no longer accepted: take a new start page token (and rescan what may have been missed). */
export class PageTokenExpiredError extends DriveError {
  override readonly name = 'PageTokenExpiredError';
  readonly kind = 'page_token_expired' as const;
}

/** The OAuth callback cannot complete: bad or expired state, state of another user, code refused. */
export class DriveOAuthError extends DriveError {
  override readonly name = 'DriveOAuthError';
  readonly kind = 'oauth' as const;
}

/** A file the provider cannot hand over as bytes (a folder, a native Google Docs file). */
export class DriveUnsupportedError extends DriveError {
  override readonly name = 'DriveUnsupportedError';
  readonly kind = 'unsupported' as const;
}

/** The drive answered something this client does not understand (status or body). */
export class DriveProtocolError extends DriveError {
  override readonly name = 'DriveProtocolError';
  readonly kind = 'protocol' as const;

  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

export function isDriveError(err: unknown): err is DriveError {
  return err instanceof DriveError;
}
