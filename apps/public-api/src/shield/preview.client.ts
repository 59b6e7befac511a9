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
  constructor(private readonly options: { llmServiceUrl: string; serviceKey: string; timeoutMs?: number }) {}

  async preview(call: PreviewCall): Promise<PreviewAnswer> {
    let res: Response;
    try {
      res = await fetch(`${this.options.llmServiceUrl.replace(/\/+$/, '')}/api/v1/data-shield/preview`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-key': this.options.serviceKey, ...(call.correlationId ? { 'x-correlation-id': call.correlationId } : {}) },
        body: JSON.stringify({ text: call.text, tenant: call.tenant, actor_user_id: call.actorUserId, ...(call.entityTypes ? { entity_types: call.entityTypes } : {}) }),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 30_000),
      });
    } catch {
      throw new ServiceUnavailableError('Data Shield is unavailable; retry later', { retry_after: 5 });
    }
    const body = (await res.json().catch(() => undefined)) as (PreviewAnswer & { message?: string; details?: { errors?: string[] } }) | undefined;
    if (res.ok && body && typeof body.text === 'string') return body;
    if (res.status === 400) throw BadRequestError.withErrors('Invalid preview request', body?.details?.errors ?? [body?.message ?? 'invalid request']);
    if (res.status === 503) throw new ServiceUnavailableError(body?.message ?? 'Data Shield is unavailable; retry later', { retry_after: 5 });
    throw new AppError(502, 'BadGatewayError', `The LLM service answered HTTP ${res.status} to the preview`);
  }
}
