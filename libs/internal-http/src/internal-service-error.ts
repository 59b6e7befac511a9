/**
 * A failed call to an internal Docflow service, carrying the service's error
 * code (spec 7: `{error, message, details}`) and whether trying again later
 * can help. Each caller names its own subclass (LlmServiceError, ...).
 */
export class InternalServiceError extends Error {
  override readonly name: string = 'InternalServiceError';

  constructor(
    /** Which service answered (or did not): `llm-service`, `public-api`. */
    readonly service: string,
    /** The service's error code (`llm_service_unavailable`, `validation_error`, ...) or one of ours (`timeout`, `unreachable`, `aborted`, `bad_response`). */
    readonly code: string,
    message: string,
    readonly options: {
      /** HTTP status, when the service answered. */
      status?: number;
      retryable?: boolean;
      /** Seconds to wait before retrying (from `details.retry_after`). */
      retryAfterSeconds?: number;
      details?: Record<string, unknown>;
    } = {},
  ) {
    super(message);
  }

  get status(): number | undefined {
    return this.options.status;
  }

  get retryable(): boolean {
    return this.options.retryable ?? false;
  }

  get retryAfterSeconds(): number | undefined {
    return this.options.retryAfterSeconds;
  }

  get details(): Record<string, unknown> {
    return this.options.details ?? {};
  }
}
