import { BadRequestError, ServiceUnavailableError } from '@docflow/service-kit';

/**
 * The broker cannot take the message now: not connected, closed, the publish
 * was not confirmed, or the target queue does not exist. A 503 for HTTP callers.
 */
export class BrokerUnavailableError extends ServiceUnavailableError {
  constructor(message = 'Message broker unavailable', details: Record<string, unknown> = {}) {
    super(message, details, 'broker_unavailable');
  }
}

/** A message failed validation against its contract class before it was sent. Nothing was published. */
export class InvalidMessageError extends BadRequestError {
  constructor(
    readonly kind: string,
    readonly errors: string[],
  ) {
    super(`Invalid ${kind} message`, { errors, kind });
  }
}

/**
 * Thrown by a handler when retrying can never help (the message is wrong for
 * good): the message is rejected without requeue and goes to the dead-letter queue.
 */
export class NonRetryableMessageError extends Error {
  constructor(
    message: string,
    override readonly cause?: unknown,
  ) {
    super(message);
    this.name = 'NonRetryableMessageError';
  }
}
