import { ContentServiceError, DocumentTextError, LlmServiceError, PromptNotFoundError } from '@docflow/llm-client';
import { NodeFailure } from '../executor';

/**
 * The node failure for an error of an AI executor: the LLM service's errors
 * are `llm_error`; unusable documents and prompts are `validation_error`;
 * text still being extracted past the wait is `timeout`. A cancelled call
 * (deadline, shutdown) is passed on as is: the engine decides what it means.
 */
export function aiFailure(err: unknown): unknown {
  if (err instanceof NodeFailure) return err;
  if (err instanceof LlmServiceError) {
    if (err.code === 'aborted') return err;
    // Shielding was required and the LLM service could not shield: nothing was sent (spec 7).
    if (err.code === 'data_shield_policy_violation')
      return new NodeFailure('policy_violation', err.message.startsWith('DATA_SHIELD_POLICY_VIOLATION') ? err.message : `DATA_SHIELD_POLICY_VIOLATION: ${err.message}`);
    const retry = err.retryAfterSeconds !== undefined ? ` (retry after ${err.retryAfterSeconds} s)` : '';
    return new NodeFailure('llm_error', `LLM call failed: ${err.message}${retry}`);
  }
  if (err instanceof ContentServiceError) {
    if (err.code === 'aborted') return err;
    if (err.status === 401 || err.status === 403) return new NodeFailure('configuration_error', `The public API refused the processor: ${err.message}`);
    return new NodeFailure('network_error', err.message);
  }
  if (err instanceof DocumentTextError) return new NodeFailure(err.reason === 'not_ready' ? 'timeout' : 'validation_error', err.message);
  if (err instanceof PromptNotFoundError) return new NodeFailure('validation_error', err.message);
  return err;
}

/** Runs `work`, turning its errors into node failures. */
export async function asNodeFailures<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw aiFailure(err);
  }
}
