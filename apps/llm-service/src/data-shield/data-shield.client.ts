import { ENTITY_TYPE_PATTERN, type EntitySpan, TokenScope } from '@docflow/data-shield';
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

/** The reverse map of one shielded call, in this process's memory only; dropped with the call. */
export interface ReplyRestorer {
  /** Every token of the scope back to its value; unknown token-shaped text is left as it is. */
  restore(text: string): string;
}

export interface TokenisedTexts {
  /** Restores the reply; it lives as long as the call that holds it, and is never logged, sent or stored. */
  scope: ReplyRestorer;
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
  preview(text: string, call?: ShieldCall): Promise<ShieldPreview>;
}

export interface HttpDataShieldOptions {
  baseUrl: string;
  serviceKey: string;
  timeoutMs?: number;
}

const DEFAULT_RETRY_AFTER = 30;

/**
 * The gateway's `entities` answer as spans of `texts`, or undefined when it
 * is not one list of `[type, start, end]` per text with each span inside its
 * text: such an answer cannot be trusted to have hidden anything.
 */
function entitySpans(value: unknown, texts: readonly string[]): EntitySpan[][] | undefined {
  if (!Array.isArray(value) || value.length !== texts.length) return undefined;
  const out: EntitySpan[][] = [];
  for (let i = 0; i < texts.length; i++) {
    const list: unknown = value[i];
    if (!Array.isArray(list)) return undefined;
    const spans: EntitySpan[] = [];
    for (const item of list as unknown[]) {
      if (!Array.isArray(item) || item.length !== 3) return undefined;
      const [type, start, end] = item as unknown[];
      if (typeof type !== 'string' || !ENTITY_TYPE_PATTERN.test(type) || !Number.isInteger(start) || !Number.isInteger(end)) return undefined;
      if ((start as number) < 0 || (end as number) <= (start as number) || (end as number) > texts[i]!.length) return undefined;
      spans.push({ type, start: start as number, end: end as number });
    }
    out.push(spans);
  }
  return out;
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
 *   POST /api/v1/entities {texts, entity_types?, tenant?, actor_user_id?, context?} → {entities: [[type, start, end], ...] per text, entity_counts, layers}
 *   POST /api/v1/detect   {text, ...} → {text, entities, entity_counts, layers, latencies_ms}
 * The gateway finds the entities (and audits the call); the tokens are made
 * here, in a TokenScope the call holds, so the reverse map never leaves
 * this process and the reply is restored without another round trip.
 * Any failure (refusal, 5xx, timeout, unreachable, malformed answer) is a
 * DataShieldUnavailableError.
 */
export class HttpDataShield implements DataShield {
  private readonly http: InternalHttpClient;

  constructor(options: HttpDataShieldOptions) {
    this.http = new InternalHttpClient({ service: 'data-shield', baseUrl: options.baseUrl, auth: { kind: 'service-key', key: options.serviceKey }, timeoutMs: options.timeoutMs ?? 10000 });
  }

  async tokenise(texts: string[], call?: ShieldCall): Promise<TokenisedTexts> {
    const data = await this.post('/api/v1/entities', { texts, ...callBody(call) });
    const spans = entitySpans(data.entities, texts);
    if (!spans) throw new DataShieldUnavailableError('Data Shield answered entities with an unexpected body', DEFAULT_RETRY_AFTER);
    const scope = new TokenScope();
    const avoid = (token: string) => texts.some((t) => t.includes(token));
    const tokenised = texts.map((text, i) => scope.tokenise(text, spans[i]!, avoid));
    const counts = isPlainObject(data.entity_counts) ? (data.entity_counts as Record<string, number>) : {};
    const layers = Array.isArray(data.layers) ? data.layers.filter((l): l is string => typeof l === 'string') : [];
    return { scope, texts: tokenised, entityCounts: counts, layers };
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
