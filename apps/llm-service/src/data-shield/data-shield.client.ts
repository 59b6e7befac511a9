import axios, { AxiosInstance } from 'axios';
import { ServiceUnavailableError } from '@docflow/service-kit';

/** Shielding could not be done: the request fails closed (spec 4.17 rule 8), nothing reaches the provider. */
export class DataShieldUnavailableError extends ServiceUnavailableError {
  constructor(message: string, retryAfterSeconds: number) {
    super(message, { retry_after: retryAfterSeconds }, 'data_shield_unavailable');
  }
}

export interface TokenisedTexts {
  /** The request scope: restore needs it, and the gateway destroys the reverse map after restoring. */
  scopeId: string;
  texts: string[];
}

export interface DataShield {
  tokenise(texts: string[], entityTypes?: string[]): Promise<TokenisedTexts>;
  restore(scopeId: string, texts: string[]): Promise<string[]>;
}

export interface HttpDataShieldOptions {
  baseUrl: string;
  serviceKey: string;
  timeoutMs?: number;
}

const DEFAULT_RETRY_AFTER = 30;

function isStringArray(value: unknown, length: number): value is string[] {
  return Array.isArray(value) && value.length === length && value.every((v) => typeof v === 'string');
}

/**
 * The Data Shield gateway over HTTP:
 *   POST /api/v1/tokenise {texts, entity_types?} → {scope_id, texts}
 *   POST /api/v1/restore  {scope_id, texts}      → {texts}
 * Any failure (refusal, 5xx, timeout, unreachable, malformed answer) is a
 * DataShieldUnavailableError.
 */
export class HttpDataShield implements DataShield {
  private readonly client: AxiosInstance;

  constructor(options: HttpDataShieldOptions) {
    this.client = axios.create({
      baseURL: options.baseUrl.replace(/\/+$/, ''),
      timeout: options.timeoutMs ?? 10000,
      headers: { 'x-service-key': options.serviceKey, 'content-type': 'application/json' },
      validateStatus: () => true,
      proxy: false,
    });
  }

  async tokenise(texts: string[], entityTypes?: string[]): Promise<TokenisedTexts> {
    const data = await this.post('/api/v1/tokenise', { texts, ...(entityTypes?.length ? { entity_types: entityTypes } : {}) });
    const scopeId = data.scope_id;
    if (typeof scopeId !== 'string' || !isStringArray(data.texts, texts.length)) {
      throw new DataShieldUnavailableError('Data Shield answered tokenise with an unexpected body', DEFAULT_RETRY_AFTER);
    }
    return { scopeId, texts: data.texts };
  }

  async restore(scopeId: string, texts: string[]): Promise<string[]> {
    const data = await this.post('/api/v1/restore', { scope_id: scopeId, texts });
    if (!isStringArray(data.texts, texts.length)) {
      throw new DataShieldUnavailableError('Data Shield answered restore with an unexpected body', DEFAULT_RETRY_AFTER);
    }
    return data.texts;
  }

  private async post(path: string, body: unknown): Promise<Record<string, unknown>> {
    let status: number;
    let data: unknown;
    try {
      const res = await this.client.post<unknown>(path, body);
      status = res.status;
      data = res.data;
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      throw new DataShieldUnavailableError(`Data Shield gateway is unreachable (${reason}); the text was not sent`, DEFAULT_RETRY_AFTER);
    }
    if (status >= 200 && status < 300 && data !== null && typeof data === 'object' && !Array.isArray(data)) return data as Record<string, unknown>;
    const details = data !== null && typeof data === 'object' ? (data as { details?: { retry_after?: unknown } }).details : undefined;
    const retryAfter = typeof details?.retry_after === 'number' && details.retry_after > 0 ? Math.ceil(details.retry_after) : DEFAULT_RETRY_AFTER;
    throw new DataShieldUnavailableError(`Data Shield gateway answered HTTP ${status} on ${path}; the text was not sent`, retryAfter);
  }
}
