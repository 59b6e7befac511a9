import { InternalHttpClient } from '@docflow/internal-http';

/**
 * The public API's internal routes (PUBLIC_API_INTERNAL_URL, without /api)
 * with the processor's service key: what the RAG and cloud-drive executors call.
 */
export function publicApiHttp(options: { baseUrl: string; serviceKey: string; timeoutMs: number; maxSockets: number; maxResponseBytes?: number }): InternalHttpClient {
  return new InternalHttpClient({
    service: 'public-api',
    baseUrl: options.baseUrl,
    auth: { kind: 'service-key', key: options.serviceKey },
    timeoutMs: options.timeoutMs,
    maxSockets: options.maxSockets,
    ...(options.maxResponseBytes !== undefined ? { maxResponseBytes: options.maxResponseBytes } : {}),
  });
}
