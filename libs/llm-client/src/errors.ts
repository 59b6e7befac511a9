/**
 * A failed call to an internal Docflow service (LLM service or the public
 * API's internal endpoints), carrying the service's error code (spec 7:
 * `{error, message, details}`) and whether trying again later can help.
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

/** The LLM service refused or failed the call. */
export class LlmServiceError extends InternalServiceError {
  override readonly name = 'LlmServiceError';
}

/** The public API's internal document or prompt endpoints refused or failed the call. */
export class ContentServiceError extends InternalServiceError {
  override readonly name = 'ContentServiceError';
}

/** A document's text cannot be used: not found, not extractable, still extracting past the wait, or over a cap. */
export class DocumentTextError extends Error {
  override readonly name = 'DocumentTextError';

  constructor(
    readonly documentId: number,
    /** `not_found`, `failed`, `not_applicable`, `not_ready`, `too_large`, `empty`. */
    readonly reason: 'not_found' | 'failed' | 'not_applicable' | 'not_ready' | 'too_large' | 'empty',
    message: string,
  ) {
    super(message);
  }
}

/** A prompt id that does not name a prompt the user can see. */
export class PromptNotFoundError extends Error {
  override readonly name = 'PromptNotFoundError';

  constructor(readonly promptId: number, userId: number) {
    super(`Prompt ${promptId} does not exist or is not visible to user ${userId}`);
  }
}
