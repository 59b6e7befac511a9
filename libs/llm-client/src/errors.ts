import { InternalServiceError } from '@docflow/internal-http';

export { InternalServiceError };

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

  constructor(
    readonly promptId: number,
    userId: number,
  ) {
    super(`Prompt ${promptId} does not exist or is not visible to user ${userId}`);
  }
}
