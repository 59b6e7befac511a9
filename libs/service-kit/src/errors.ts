/**
 * The error hierarchy. Each error carries the HTTP status and the name the
 * spec's error body uses; the error middleware turns them into
 * {"error": {status, name, message, details}} (public) or
 * {error: code, message, details} (internal services).
 */
export type ErrorDetails = Record<string, unknown>;

export class AppError extends Error {
  constructor(
    readonly status: number,
    override readonly name: string,
    message: string,
    readonly details: ErrorDetails = {},
    /** Short snake_case code used by the internal error body. */
    readonly code: string = 'error',
  ) {
    super(message);
  }
}

export class BadRequestError extends AppError {
  /** details.errors is always an array of strings (spec part 7); without one, it lists the message. */
  constructor(message: string, details: ErrorDetails = {}, code = 'validation_error') {
    super(400, 'BadRequestError', message, Array.isArray(details.errors) ? details : { ...details, errors: [message] }, code);
  }
  /** A 400 whose details.errors lists every problem found. */
  static withErrors(message: string, errors: string[], extra: ErrorDetails = {}): BadRequestError {
    return new BadRequestError(message, { errors, ...extra });
  }
}

export class UnauthorizedError extends AppError {
  constructor(message = 'Missing or invalid credentials', details: ErrorDetails = {}) {
    super(401, 'UnauthorizedError', message, details, 'unauthorized');
  }
}

export class ForbiddenError extends AppError {
  constructor(message = 'Forbidden', details: ErrorDetails = {}) {
    super(403, 'ForbiddenError', message, details, 'forbidden');
  }
}

export class NotFoundError extends AppError {
  constructor(message = 'Not Found', details: ErrorDetails = {}) {
    super(404, 'NotFoundError', message, details, 'not_found');
  }
}

export class RequestTimeoutError extends AppError {
  constructor(message = 'Request timed out', details: ErrorDetails = {}) {
    super(408, 'RequestTimeoutError', message, details, 'timeout');
  }
}

export class ConflictError extends AppError {
  constructor(message: string, details: ErrorDetails = {}) {
    super(409, 'ConflictError', message, details, 'conflict');
  }
}

export class PayloadTooLargeError extends AppError {
  constructor(message = 'Payload too large', details: ErrorDetails = {}) {
    super(413, 'PayloadTooLargeError', message, details, 'payload_too_large');
  }
}

export class UnprocessableEntityError extends AppError {
  constructor(message: string, details: ErrorDetails = {}, code = 'validation_error') {
    super(422, 'UnprocessableEntityError', message, details, code);
  }
}

export class TooManyRequestsError extends AppError {
  constructor(message = 'Too many requests', details: ErrorDetails = {}) {
    super(429, 'TooManyRequestsError', message, details, 'rate_limited');
  }
}

export class ServiceUnavailableError extends AppError {
  constructor(message = 'Service unavailable', details: ErrorDetails = {}, code = 'service_unavailable') {
    super(503, 'ServiceUnavailableError', message, details, code);
  }
}

export function isAppError(err: unknown): err is AppError {
  return err instanceof AppError;
}
