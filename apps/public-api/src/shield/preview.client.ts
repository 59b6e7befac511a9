import { InternalHttpClient, type InternalResponse } from '@docflow/internal-http';
import { AppError, BadRequestError, ServiceUnavailableError } from '@docflow/service-kit';

export interface PreviewAnswer {
  text: string;
  entities: { type: string; start: number; end: number; score: number; layer: string }[];
  entity_counts: Record<string, number>;
  layers: string[];
  latencies_ms: Record<string, number>;
}

export interface PreviewCall {
  text: string;
  entityTypes?: string[];
  tenant: string;
  actorUserId: number;
  correlationId?: string;
}

/**
 * The preview entry point (spec 4.17 rule 6) runs where every other
 * shielded call runs: the LLM service's Data Shield, so the public API calls
 * no service beyond the two it already depends on.
 */
export class PreviewClient {
  private readonly http: InternalHttpClient;

  constructor(options: { llmServiceUrl: string; serviceKey: string; timeoutMs?: number }) {
    this.http = new InternalHttpClient({ service: 'llm-service', baseUrl: options.llmServiceUrl, auth: { kind: 'service-key', key: options.serviceKey }, timeoutMs: options.timeoutMs ?? 30_000 });
  }

  async preview(call: PreviewCall): Promise<PreviewAnswer> {
    let res: InternalResponse;
    try {
      res = await this.http.request({
        method: 'POST',
        path: '/api/v1/data-shield/preview',
        json: { text: call.text, tenant: call.tenant, actor_user_id: call.actorUserId, ...(call.entityTypes ? { entity_types: call.entityTypes } : {}) },
        ...(call.correlationId ? { headers: { 'x-correlation-id': call.correlationId } } : {}),
      });
    } catch {
      throw new ServiceUnavailableError('Data Shield is unavailable; retry later', { retry_after: 5 });
    }
    const body = (typeof res.body === 'object' && res.body !== null ? res.body : undefined) as (PreviewAnswer & { message?: string; details?: { errors?: string[] } }) | undefined;
    const ok = res.status >= 200 && res.status < 300;
    if (ok && body && typeof body.text === 'string') return body;
    if (res.status === 400) throw BadRequestError.withErrors('Invalid preview request', body?.details?.errors ?? [body?.message ?? 'invalid request']);
    if (res.status === 503) throw new ServiceUnavailableError(body?.message ?? 'Data Shield is unavailable; retry later', { retry_after: 5 });
    throw new AppError(502, 'BadGatewayError', `The LLM service answered HTTP ${res.status} to the preview`);
  }
}
