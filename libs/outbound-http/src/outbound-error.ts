/**
 * The one error type the outbound client throws. `kind` tells the workflow
 * engine what went wrong; `retryable` whether trying again may help.
 * Configuration errors (forbidden scheme, address or header) never are.
 */
export type OutboundErrorKind = 'configuration' | 'timeout' | 'network' | 'dns' | 'http' | 'too_large';

export interface OutboundErrorOptions {
  retryable?: boolean;
  status?: number;
  cause?: unknown;
}

/** Upstream statuses worth retrying: the server may answer differently later. */
const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 425, 429, 500, 502, 503, 504]);

function defaultRetryable(kind: OutboundErrorKind, status: number | undefined): boolean {
  switch (kind) {
    case 'configuration':
    case 'too_large':
      return false;
    case 'timeout':
    case 'network':
    case 'dns':
      return true;
    case 'http':
      return status !== undefined && RETRYABLE_STATUSES.has(status);
  }
}

export class OutboundRequestError extends Error {
  override readonly name = 'OutboundRequestError';
  readonly kind: OutboundErrorKind;
  readonly retryable: boolean;
  readonly status?: number;

  constructor(kind: OutboundErrorKind, message: string, options: OutboundErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.kind = kind;
    this.status = options.status;
    this.retryable = options.retryable ?? defaultRetryable(kind, options.status);
  }
}

export function configurationError(message: string): OutboundRequestError {
  return new OutboundRequestError('configuration', message);
}

export function isOutboundRequestError(value: unknown): value is OutboundRequestError {
  return value instanceof OutboundRequestError;
}

/**
 * The one answer for a destination that may not be called: an internal
 * literal, `localhost`, a name resolving to an internal address, or a name
 * that does not resolve at all. Saying which would let a workflow author map
 * internal names and address ranges through error texts (issue #13), so the
 * text, kind and retryability are the same for all of them.
 */
export function refusedDestination(host: string): OutboundRequestError {
  return configurationError(`Destination ${host} is not allowed or does not resolve to a public address`);
}
