import type { ErrorType } from '@docflow/contracts';
import { ContentServiceError, DocumentTextError, InternalServiceError, LlmServiceError, PromptNotFoundError } from '@docflow/llm-client';
import { errorMessage } from '@docflow/service-kit';

/** A job the processor cannot run as sent (bad payload, missing prompt): answered `failed` with validation_error. */
export class JobValidationError extends Error {
  override readonly name = 'JobValidationError';
}

/** Something went wrong with one document of a job; the message names the document. */
export class DocumentFailure extends Error {
  override readonly name = 'DocumentFailure';

  constructor(
    readonly documentId: number,
    override readonly cause: unknown,
  ) {
    super(`Document ${documentId}: ${errorMessage(cause)}`);
  }
}

export type FailureVerdict =
  /** The job was stopped (shutdown): no result; the message goes back to the queue. */
  | { kind: 'aborted' }
  /** A dependency is unreachable for now: redeliver while attempts remain, then fail with `errorType`. */
  | { kind: 'transient'; errorType: ErrorType; message: string }
  | { kind: 'failed'; errorType: ErrorType; message: string; unexpected?: boolean };

function serviceVerdict(err: InternalServiceError, errorType: ErrorType, message: string): FailureVerdict {
  if (err.code === 'aborted') return { kind: 'aborted' };
  return { kind: 'failed', errorType, message };
}

/**
 * How a job failure is answered. LLM service errors are `llm_error`; a 503
 * from it is final here, since the service already retried its provider.
 * An unreachable LLM service or public API, or a 503 from the public API,
 * is redelivered a few times first.
 */
export function judgeFailure(err: unknown): FailureVerdict {
  const cause = err instanceof DocumentFailure ? err.cause : err;
  const message = errorMessage(err);
  if (cause instanceof LlmServiceError) {
    // Unreachable: redeliver. A timeout is final: repeating a call that long (and paid for) is no better.
    if (cause.code === 'unreachable') return { kind: 'transient', errorType: 'llm_error', message };
    return serviceVerdict(cause, 'llm_error', message);
  }
  if (cause instanceof ContentServiceError) {
    if (cause.retryable && cause.code !== 'aborted') return { kind: 'transient', errorType: 'network_error', message };
    if (cause.status === 401 || cause.status === 403) return serviceVerdict(cause, 'configuration_error', message);
    return serviceVerdict(cause, 'network_error', message);
  }
  if (cause instanceof DocumentTextError) return { kind: 'failed', errorType: cause.reason === 'not_ready' ? 'timeout' : 'validation_error', message };
  if (cause instanceof PromptNotFoundError || cause instanceof JobValidationError) return { kind: 'failed', errorType: 'validation_error', message };
  return { kind: 'failed', errorType: 'internal_error', message, unexpected: true };
}
