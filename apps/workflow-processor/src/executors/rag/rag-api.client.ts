import { bodyText, InternalHttpClient, InternalHttpError, type InternalResponse } from '@docflow/internal-http';
import { publicApiHttp } from '../public-api-http';
import { abortReason } from '../../engine/abort';
import { NodeFailure } from '../executor';

/** Where the RAG task types reach the public API's internal RAG endpoints. */
export interface RagExecutorDeps {
  /** The public API's address for internal calls (PUBLIC_API_INTERNAL_URL), without /api. */
  baseUrl: string;
  /** Sent as `X-Service-Key`; never logged or put in an error. */
  serviceKey: string;
  /** Per call when the node sets no `timeout`. Default 120000 (an answer may wait for a language model). */
  timeoutMs?: number;
}

const MAX_BODY_IN_ERROR = 1000;

/**
 * JSON POSTs to `{baseUrl}/api/internal/rag/...` with the service key and the
 * run's correlation id. A non-2xx answer fails the node with `http_error` and
 * the upstream status and body (as a REST node's error reads); no answer is
 * `network_error` or `timeout`; a cancelled run passes its abort on.
 */
export class RagApiClient {
  private readonly http: InternalHttpClient;

  constructor(deps: RagExecutorDeps) {
    this.http = publicApiHttp({ baseUrl: deps.baseUrl, serviceKey: deps.serviceKey, timeoutMs: deps.timeoutMs ?? 120000, maxSockets: 32, maxResponseBytes: 16 * 1024 * 1024 });
  }

  async post(path: string, body: Record<string, unknown>, options: { signal: AbortSignal; timeoutMs?: number }): Promise<Record<string, unknown>> {
    const { signal } = options;
    if (signal.aborted) throw abortReason(signal);
    let res: InternalResponse;
    try {
      res = await this.http.request({ method: 'POST', path: `/api${path}`, json: body, signal, timeoutMs: options.timeoutMs });
    } catch (err) {
      if (signal.aborted) throw abortReason(signal);
      if (err instanceof InternalHttpError && err.kind === 'timeout') throw new NodeFailure('timeout', `The public API did not answer POST /api${path} in time`);
      const code = err instanceof InternalHttpError && err.code ? ` (${err.code})` : '';
      throw new NodeFailure('network_error', `The public API could not be reached for POST /api${path}${code}`);
    }
    if (res.status === 401 || res.status === 403) {
      throw new NodeFailure('configuration_error', `${res.status} ${bodyText(res.body, MAX_BODY_IN_ERROR)}: the public API refused the processor's service key`);
    }
    if (res.status < 200 || res.status >= 300) throw new NodeFailure('http_error', `${res.status} ${bodyText(res.body, MAX_BODY_IN_ERROR)}`);
    if (res.body === null || typeof res.body !== 'object' || Array.isArray(res.body)) {
      throw new NodeFailure('http_error', `${res.status} the public API sent a body that is not a JSON object`);
    }
    return res.body as Record<string, unknown>;
  }

  /** Frees pooled sockets. */
  close(): void {
    this.http.close();
  }
}
