import { internalDocumentTextPath, INTERNAL_PROMPTS_PATH, type DocumentPage, type DocumentText, type InternalPrompt, type PromptType } from '@docflow/contracts';
import { JsonServiceClient } from '@docflow/internal-http';
import { isPlainObject, type Logger } from '@docflow/service-kit';
import { ContentServiceError, DocumentTextError, InternalServiceError, PromptNotFoundError } from './errors';

export { PROMPT_TYPES } from '@docflow/contracts';
export type { DocumentPage, DocumentText, InternalPrompt, PromptType } from '@docflow/contracts';

export interface ContentClientOptions {
  /** The public API's address for internal calls, e.g. http://127.0.0.1:1337 (without /api). */
  baseUrl: string;
  serviceKey: string;
  timeoutMs?: number;
  logger?: Logger;
  /** Documents with more characters of text are refused (DocumentTextError too_large). Default 400000. */
  maxChars?: number;
  /** Documents with more pages are refused. Default 500. */
  maxPages?: number;
  /** How long to wait for text that is still being extracted. Default 60000. */
  textWaitMs?: number;
  /** Poll interval while waiting. Default 1000. */
  pollMs?: number;
}

export interface ContentClient {
  /**
   * The document's text; waits (bounded) while its extraction is pending or
   * processing. DocumentTextError when it does not exist for the user, its
   * extraction failed or does not apply, it is still not ready, or it is over a cap.
   */
  documentText(documentId: number, options?: { userId?: number; signal?: AbortSignal }): Promise<DocumentText>;
  /** The prompts the user can see (system plus own), optionally of one type. */
  visiblePrompts(userId: number, options?: { type?: PromptType; signal?: AbortSignal }): Promise<InternalPrompt[]>;
  /** One visible prompt; PromptNotFoundError when the user cannot see it. */
  prompt(promptId: number, userId: number, options?: { signal?: AbortSignal }): Promise<InternalPrompt>;
  close(): void;
}

const WAITING = new Set(['pending', 'processing']);

function str(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function unwrap(body: unknown): unknown {
  return isPlainObject(body) && isPlainObject(body.data) ? body.data : body;
}

function badResponse(what: string): ContentServiceError {
  return new ContentServiceError('public-api', 'bad_response', `public-api sent an unusable ${what} answer`, { retryable: false });
}

export function readPrompt(raw: unknown): InternalPrompt | undefined {
  if (!isPlainObject(raw)) return undefined;
  const id = typeof raw.id === 'number' ? raw.id : typeof raw.id === 'string' && /^\d+$/.test(raw.id) ? Number(raw.id) : NaN;
  const title = str(raw.title);
  if (!Number.isSafeInteger(id) || id <= 0 || !title) return undefined;
  const roles = Array.isArray(raw.roles)
    ? raw.roles
        .filter(isPlainObject)
        .filter((r) => (r.role === 'system' || r.role === 'user') && typeof r.prompt === 'string')
        .map((r) => ({ role: r.role as 'system' | 'user', prompt: r.prompt as string }))
    : [];
  return {
    id,
    title,
    type: str(raw.type) ?? 'extraction',
    level: str(raw.level) ?? 'user',
    section: str(raw.section),
    description: str(raw.description),
    roles,
    tasks: strings(raw.tasks),
    instructions: strings(raw.instructions),
    outputFormat: str(raw.outputFormat) ?? str(raw.output_format),
    exampleOutput: raw.exampleOutput ?? raw.example_output ?? null,
  };
}

function readPages(value: unknown): { pages: DocumentPage[] | null; count: number | null } {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return { pages: null, count: value };
  if (Array.isArray(value)) {
    const pages = value
      .filter(isPlainObject)
      .filter((p) => typeof p.text === 'string')
      .map((p, i) => ({ page: typeof p.page === 'number' ? p.page : i + 1, text: p.text as string }));
    return { pages, count: pages.length };
  }
  return { pages: null, count: null };
}

function abortable(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new ContentServiceError('public-api', 'aborted', 'waiting for document text was cancelled'));
    const onAbort = () => {
      clearTimeout(timer);
      reject(new ContentServiceError('public-api', 'aborted', 'waiting for document text was cancelled'));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Client of the public API's internal content endpoints, for LLM callers:
 * `GET /api/internal/documents/{id}/text` and `GET /api/internal/prompts`
 * (both behind `X-Service-Key`).
 */
export function createContentClient(options: ContentClientOptions): ContentClient {
  const http = new JsonServiceClient(
    { service: 'public-api', baseUrl: options.baseUrl, auth: { kind: 'service-key', key: options.serviceKey }, timeoutMs: options.timeoutMs ?? 30000, logger: options.logger },
    (code, message, o) => new ContentServiceError('public-api', code, message, o),
  );
  const maxChars = options.maxChars ?? 400000;
  const maxPages = options.maxPages ?? 500;
  const waitMs = options.textWaitMs ?? 60000;
  const pollMs = options.pollMs ?? 1000;

  async function fetchText(documentId: number, userId: number | undefined, signal: AbortSignal | undefined): Promise<Record<string, unknown>> {
    try {
      const body = unwrap(await http.get(internalDocumentTextPath(documentId), { query: { user_id: userId }, signal }));
      if (!isPlainObject(body)) throw badResponse('document text');
      return body;
    } catch (err) {
      if (err instanceof InternalServiceError && err.status === 404) {
        throw new DocumentTextError(documentId, 'not_found', `Document ${documentId} does not exist${userId !== undefined ? ` or is not visible to user ${userId}` : ''}`);
      }
      throw err;
    }
  }

  const client: ContentClient = {
    async documentText(documentId, o = {}) {
      const deadline = Date.now() + waitMs;
      let body = await fetchText(documentId, o.userId, o.signal);
      while (WAITING.has(String(body.text_status)) && Date.now() + pollMs <= deadline) {
        await abortable(pollMs, o.signal);
        body = await fetchText(documentId, o.userId, o.signal);
      }
      const status = String(body.text_status ?? 'completed');
      if (WAITING.has(status)) {
        throw new DocumentTextError(documentId, 'not_ready', `The text of document ${documentId} is still being extracted (${status}) after ${Math.round(waitMs / 1000)} s; try again later`);
      }
      if (status === 'failed') {
        const why = str(body.text_error);
        throw new DocumentTextError(documentId, 'failed', `Text extraction failed for document ${documentId}${why ? `: ${why}` : ''}`);
      }
      if (status === 'not_applicable') {
        throw new DocumentTextError(documentId, 'not_applicable', `Document ${documentId} (${str(body.mime_type) ?? 'unknown type'}) has no extractable text`);
      }
      const text = str(body.text) ?? '';
      const { pages, count } = readPages(body.pages);
      if (text.length > maxChars) {
        throw new DocumentTextError(documentId, 'too_large', `Document ${documentId} has ${text.length} characters of text; the limit is ${maxChars}`);
      }
      if (count !== null && count > maxPages) {
        throw new DocumentTextError(documentId, 'too_large', `Document ${documentId} has ${count} pages; the limit is ${maxPages}`);
      }
      return {
        document_id: typeof body.document_id === 'number' ? body.document_id : documentId,
        title: str(body.title) ?? `Document ${documentId}`,
        mime_type: str(body.mime_type) ?? 'application/octet-stream',
        text,
        pages,
        page_count: count,
        text_status: status,
      };
    },

    async visiblePrompts(userId, o = {}) {
      const body = await http.get(INTERNAL_PROMPTS_PATH, { query: { user_id: userId, type: o.type }, signal: o.signal });
      const list = isPlainObject(body) && Array.isArray(body.data) ? body.data : Array.isArray(body) ? body : undefined;
      if (!list) throw badResponse('prompts');
      return list.map(readPrompt).filter((p): p is InternalPrompt => p !== undefined);
    },

    async prompt(promptId, userId, o = {}) {
      const found = (await client.visiblePrompts(userId, o)).find((p) => p.id === promptId);
      if (!found) throw new PromptNotFoundError(promptId, userId);
      return found;
    },

    close() {
      http.close();
    },
  };
  return client;
}
