import { TokenScope } from '@docflow/data-shield';
import { InternalHttpClient, type InternalResponse } from '@docflow/internal-http';
import { errorMessage, isPlainObject, ServiceUnavailableError } from '@docflow/service-kit';

/** Shielding could not be done: the request fails closed (spec 4.17 rule 8), nothing reaches the provider. */
export class DataShieldUnavailableError extends ServiceUnavailableError {
  constructor(message: string, retryAfterSeconds: number) {
    super(message, { retry_after: retryAfterSeconds }, 'data_shield_unavailable');
  }
}

/** Who a shielded call is for and what it calls: the tenant's detectors apply; the names go into the audit row. */
export interface ShieldCall {
  entityTypes?: string[];
  tenant?: string;
  actorUserId?: number;
  context?: { endpoint?: string; model?: string; provider?: string };
}

export interface TokenisedTexts {
  /** The request scope (the sealed reverse map): restore needs it; it is dropped with the request. */
  scopeId: string;
  texts: string[];
  entityCounts: Record<string, number>;
  layers: string[];
}

export interface PreviewEntity {
  type: string;
  start: number;
  end: number;
  score: number;
  layer: string;
}

export interface ShieldPreview {
  text: string;
  entities: PreviewEntity[];
  entity_counts: Record<string, number>;
  layers: string[];
  latencies_ms: Record<string, number>;
}

export interface DataShield {
  tokenise(texts: string[], call?: ShieldCall): Promise<TokenisedTexts>;
  restore(scopeId: string, texts: string[]): Promise<string[]>;
  preview(text: string, call?: ShieldCall): Promise<ShieldPreview>;
}

export interface HttpDataShieldOptions {
  baseUrl: string;
  serviceKey: string;
  timeoutMs?: number;
  /**
   * Opens the gateway's sealed scope handles here (the key is derived from
   * INTERNAL_SERVICE_JWT_SECRET, which this service shares), so a reply is
   * restored without a second round trip; a handle it cannot open goes to
   * the gateway's /restore.
   */
  localRestore?: { open(handle: string): [string, string][] };
}

const DEFAULT_RETRY_AFTER = 30;

function isStringArray(value: unknown, length: number): value is string[] {
  return Array.isArray(value) && value.length === length && value.every((v) => typeof v === 'string');
}

function callBody(call: ShieldCall | undefined): Record<string, unknown> {
  if (!call) return {};
  return {
    ...(call.entityTypes?.length ? { entity_types: call.entityTypes } : {}),
    ...(call.tenant ? { tenant: call.tenant } : {}),
    ...(call.actorUserId ? { actor_user_id: call.actorUserId } : {}),
    ...(call.context ? { context: call.context } : {}),
  };
}

/**
 * The Data Shield gateway over HTTP (DATA_SHIELD_MODE=http, the default):
 *   POST /api/v1/tokenise {texts, entity_types?, tenant?, actor_user_id?, context?} → {scope_id, texts, entity_counts, layers}
 *   POST /api/v1/restore  {scope_id, texts} → {texts}
 *   POST /api/v1/detect   {text, ...} → {text, entities, entity_counts, layers, latencies_ms}
 * Any failure (refusal, 5xx, timeout, unreachable, malformed answer) is a
 * DataShieldUnavailableError.
 */
export class HttpDataShield implements DataShield {
  private readonly http: InternalHttpClient;
  private readonly localRestore: HttpDataShieldOptions['localRestore'];

  constructor(options: HttpDataShieldOptions) {
    this.localRestore = options.localRestore;
    this.http = new InternalHttpClient({ service: 'data-shield', baseUrl: options.baseUrl, auth: { kind: 'service-key', key: options.serviceKey }, timeoutMs: options.timeoutMs ?? 10000 });
  }

  async tokenise(texts: string[], call?: ShieldCall): Promise<TokenisedTexts> {
    const data = await this.post('/api/v1/tokenise', { texts, ...callBody(call) });
    const scopeId = data.scope_id;
    if (typeof scopeId !== 'string' || !isStringArray(data.texts, texts.length)) {
      throw new DataShieldUnavailableError('Data Shield answered tokenise with an unexpected body', DEFAULT_RETRY_AFTER);
    }
    const counts = isPlainObject(data.entity_counts) ? (data.entity_counts as Record<string, number>) : {};
    const layers = Array.isArray(data.layers) ? data.layers.filter((l): l is string => typeof l === 'string') : [];
    return { scopeId, texts: data.texts, entityCounts: counts, layers };
  }

  async restore(scopeId: string, texts: string[]): Promise<string[]> {
    if (this.localRestore) {
      let entries: [string, string][] | undefined;
      try {
        entries = this.localRestore.open(scopeId);
      } catch {
        entries = undefined;
      }
      if (entries) {
        const scope = new TokenScope(undefined, entries);
        return texts.map((t) => scope.restore(t));
      }
    }
    const data = await this.post('/api/v1/restore', { scope_id: scopeId, texts });
    if (!isStringArray(data.texts, texts.length)) {
      throw new DataShieldUnavailableError('Data Shield answered restore with an unexpected body', DEFAULT_RETRY_AFTER);
    }
    return data.texts;
  }

  async preview(text: string, call?: ShieldCall): Promise<ShieldPreview> {
    const data = await this.post('/api/v1/detect', { text, ...callBody(call) });
    if (typeof data.text !== 'string' || !Array.isArray(data.entities)) throw new DataShieldUnavailableError('Data Shield answered detect with an unexpected body', DEFAULT_RETRY_AFTER);
    return data as unknown as ShieldPreview;
  }

  private async post(path: string, body: unknown): Promise<Record<string, unknown>> {
    let res: InternalResponse;
    try {
      res = await this.http.request({ method: 'POST', path, json: body });
    } catch (err) {
      const reason = errorMessage(err);
      throw new DataShieldUnavailableError(`Data Shield gateway is unreachable (${reason}); the text was not sent`, DEFAULT_RETRY_AFTER);
    }
    const { status, body: data } = res;
    if (status >= 200 && status < 300 && isPlainObject(data)) return data;
    const details = isPlainObject(data) ? (data as { details?: { retry_after?: unknown } }).details : undefined;
    const retryAfter = typeof details?.retry_after === 'number' && details.retry_after > 0 ? Math.ceil(details.retry_after) : DEFAULT_RETRY_AFTER;
    throw new DataShieldUnavailableError(`Data Shield gateway answered HTTP ${status} on ${path}; the text was not sent`, retryAfter);
  }
}
