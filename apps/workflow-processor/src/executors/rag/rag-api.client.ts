import http from 'node:http';
import https from 'node:https';
import axios, { type AxiosInstance, isAxiosError, isCancel } from 'axios';
import { CORRELATION_HEADER, currentCorrelationId } from '@docflow/service-kit';
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

function bodyText(data: unknown): string {
  const text = typeof data === 'string' ? data : JSON.stringify(data ?? '');
  return text.length > MAX_BODY_IN_ERROR ? `${text.slice(0, MAX_BODY_IN_ERROR)}…` : text;
}

/**
 * JSON POSTs to `{baseUrl}/api/internal/rag/...` with the service key and the
 * run's correlation id. A non-2xx answer fails the node with `http_error` and
 * the upstream status and body (as a REST node's error reads); no answer is
 * `network_error` or `timeout`; a cancelled run passes its abort on.
 */
export class RagApiClient {
  private readonly http: AxiosInstance;
  private readonly httpAgent = new http.Agent({ keepAlive: true, maxSockets: 32 });
  private readonly httpsAgent = new https.Agent({ keepAlive: true, maxSockets: 32 });

  constructor(private readonly deps: RagExecutorDeps) {
    this.http = axios.create({
      baseURL: deps.baseUrl.replace(/\/+$/, ''),
      httpAgent: this.httpAgent,
      httpsAgent: this.httpsAgent,
      maxRedirects: 0,
      maxContentLength: 16 * 1024 * 1024,
      validateStatus: () => true,
      transitional: { clarifyTimeoutError: true },
    });
  }

  async post(path: string, body: Record<string, unknown>, options: { signal: AbortSignal; timeoutMs?: number }): Promise<Record<string, unknown>> {
    const { signal } = options;
    if (signal.aborted) throw abortReason(signal);
    const correlation = currentCorrelationId();
    let res;
    try {
      res = await this.http.post<unknown>(`/api${path}`, body, {
        signal,
        timeout: options.timeoutMs ?? this.deps.timeoutMs ?? 120000,
        headers: { 'x-service-key': this.deps.serviceKey, 'content-type': 'application/json', ...(correlation ? { [CORRELATION_HEADER]: correlation } : {}) },
      });
    } catch (err) {
      if (signal.aborted || isCancel(err)) throw abortReason(signal);
      if (isAxiosError(err) && (err.code === 'ETIMEDOUT' || err.code === 'ECONNABORTED')) {
        throw new NodeFailure('timeout', `The public API did not answer POST /api${path} in time`);
      }
      const code = isAxiosError(err) && err.code ? ` (${err.code})` : '';
      throw new NodeFailure('network_error', `The public API could not be reached for POST /api${path}${code}`);
    }
    if (res.status === 401 || res.status === 403) {
      throw new NodeFailure('configuration_error', `${res.status} ${bodyText(res.data)}: the public API refused the processor's service key`);
    }
    if (res.status < 200 || res.status >= 300) throw new NodeFailure('http_error', `${res.status} ${bodyText(res.data)}`);
    if (res.data === null || typeof res.data !== 'object' || Array.isArray(res.data)) {
      throw new NodeFailure('http_error', `${res.status} the public API sent a body that is not a JSON object`);
    }
    return res.data as Record<string, unknown>;
  }

  /** Frees pooled sockets. */
  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}
