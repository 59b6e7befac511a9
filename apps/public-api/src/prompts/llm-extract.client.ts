import type { ExtractRequest, ExtractResponse } from '@docflow/contracts';
import type { Logger } from '@docflow/service-kit';

export interface LlmExtractClientOptions {
  /** `{llm_url}`, e.g. http://127.0.0.1:8020 (LLM_SERVICE_URL). */
  baseUrl: string;
  /** Sent as `X-Service-Key` (SERVICE_KEY). */
  serviceKey: string;
  logger: Logger;
}

/** What POST /api/v1/extract takes from this client: the contract plus the LLM service's generation hints. */
export type ExtractCall = ExtractRequest & { output_format?: 'json' | 'text'; task_hint?: 'extract' | 'classify' | 'summarize' | 'chat' };

/** The LLM service did not answer within the time given. */
export class LlmTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`the LLM service did not answer within ${timeoutMs} ms`);
    this.name = 'LlmTimeoutError';
  }
}

/** The LLM service could not be reached or answered with an error. `message` is safe to show a caller. */
export class LlmCallError extends Error {
  constructor(message: string, readonly status?: number, readonly details?: Record<string, unknown>) {
    super(message);
    this.name = 'LlmCallError';
  }
}

function describeFetchError(err: Error): string {
  const cause = (err as Error & { cause?: unknown }).cause;
  if (cause instanceof Error) return `${err.message}: ${(cause as Error & { code?: string }).code ?? cause.message}`;
  return err.message;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The internal error body `{error: code, message, details}` (or a public-style `{error: {name, message, details}}`) of a refusal. */
function describeErrorBody(parsed: unknown, text: string): { code: string; message: string; details?: Record<string, unknown> } {
  if (!isRecord(parsed)) return { code: '', message: text.trim().slice(0, 200) || 'no message' };
  const inner = isRecord(parsed['error']) ? parsed['error'] : parsed;
  const code = typeof parsed['error'] === 'string' ? parsed['error'] : typeof inner['name'] === 'string' ? inner['name'] : '';
  const message = typeof inner['message'] === 'string' ? inner['message'] : 'no message';
  const details = isRecord(inner['details']) ? inner['details'] : undefined;
  return { code, message, ...(details ? { details } : {}) };
}

/** The public API's client of the LLM service's extract endpoint (spec 4.16). */
export class LlmExtractClient {
  private readonly url: string;

  constructor(private readonly options: LlmExtractClientOptions) {
    this.url = `${options.baseUrl.replace(/\/+$/, '')}/api/v1/extract`;
  }

  /** One extract call; throws LlmTimeoutError after `timeoutMs`, LlmCallError on anything but a 2xx JSON answer. */
  async extract(body: ExtractCall, timeoutMs: number): Promise<ExtractResponse> {
    let response: Response;
    let text: string;
    try {
      response = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-key': this.options.serviceKey },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
      text = await response.text();
    } catch (err) {
      if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) throw new LlmTimeoutError(timeoutMs);
      const reason = err instanceof Error ? describeFetchError(err) : String(err);
      this.options.logger.warn('LLM service unreachable', { error: reason });
      throw new LlmCallError(`the LLM service is unreachable (${reason})`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text) as unknown;
    } catch {
      parsed = undefined;
    }
    if (!response.ok) {
      const { code, message, details } = describeErrorBody(parsed, text);
      this.options.logger.warn('LLM service refused an extract call', { status: response.status, code });
      throw new LlmCallError(`the LLM service answered ${response.status}${code ? ` ${code}` : ''}: ${message}`, response.status, details);
    }
    if (!parsed || typeof parsed !== 'object' || !('content' in parsed)) throw new LlmCallError('the LLM service answered without content');
    return parsed as ExtractResponse;
  }
}
