import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { errorMessage, type Logger } from '@docflow/service-kit';
import type { DetectedEntity, Layer } from '../entities';
import { type CompiledTenant, type DetectionEngine, DetectorError } from '../engine/detection-engine';
import { type ScopeSealer } from '../tokens/scope-seal';
import { StreamRestorer, TokenScope } from '../tokens/token-scope';
import { EMPTY_TENANT_DETECTORS } from '../tenant/tenant-detectors';
import type { AuditSink, ShieldAuditEvent, TenantDetectorSource } from './ports';

export interface CallContext {
  /** Entry point (spec 4.17 rule 6): chat, extract, agent, classification, summarization, extraction, preview. */
  endpoint?: string;
  model?: string;
  provider?: string;
}

export interface TokeniseRequest {
  texts: string[];
  entityTypes?: string[];
  /** The tenant whose detectors apply (the owning user's id); none: built-in detectors only. */
  tenant?: string;
  actorUserId?: number;
  correlationId?: string;
  context?: CallContext;
}

export interface TokeniseResult {
  /** Opaque handle holding the sealed reverse map; restore needs it. */
  scopeId: string;
  texts: string[];
  entityCounts: Record<string, number>;
  layers: Layer[];
  latencies: Record<string, number>;
}

/** Texts tokenised in a scope the caller holds: `scope` restores the reply and is dropped with the request. */
export interface ScopedTokenisation {
  scope: TokenScope;
  texts: string[];
  entityCounts: Record<string, number>;
  layers: Layer[];
  latencies: Record<string, number>;
}

/** The entities of each text, in the order of the texts; their values stay in the caller's texts. */
export interface TextsDetection {
  entities: DetectedEntity[][];
  entityCounts: Record<string, number>;
  layers: Layer[];
  latencies: Record<string, number>;
}

export interface PreviewEntity {
  type: string;
  start: number;
  end: number;
  score: number;
  layer: Layer;
}

export interface PreviewResult {
  text: string;
  entities: PreviewEntity[];
  entityCounts: Record<string, number>;
  layers: Layer[];
  latencies: Record<string, number>;
}

export interface ShieldServiceOptions {
  engine: DetectionEngine;
  sealer: ScopeSealer;
  logger: Logger;
  tenants?: TenantDetectorSource;
  audit?: AuditSink;
  /** How long a tenant's detectors are used before they are fetched again. Default 30 s. */
  tenantCacheMs?: number;
  now?: () => number;
}

interface CachedTenant {
  compiled: CompiledTenant;
  version: string;
  fetchedAt: number;
}

const FAILED_SOURCE_RETRY_MS = 5000;
const MAX_CACHED_TENANTS = 1000;

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

function countByType(entities: readonly DetectedEntity[], into: Record<string, number> = {}): Record<string, number> {
  for (const e of entities) into[e.type] = (into[e.type] ?? 0) + 1;
  return into;
}

/**
 * Data Shield's use cases (spec 4.17), shared by the gateway and the LLM
 * service's in-process mode: tokenise texts in one scope, restore a reply,
 * preview a detection. Detector failures are DetectorError (the caller
 * answers 503); tenant-source failures give the built-in detectors only;
 * audit failures are the sink's to absorb.
 */
export class ShieldService {
  private readonly tenants = new LRUCache<string, CachedTenant>({ max: MAX_CACHED_TENANTS });
  private readonly loading = new Map<string, Promise<CompiledTenant>>();
  private readonly now: () => number;

  constructor(private readonly options: ShieldServiceOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Tokenises the texts in one new scope, sealed into the handle the caller keeps (`/tokenise`). */
  async tokenise(req: TokeniseRequest): Promise<TokeniseResult> {
    const scope = new TokenScope();
    const r = await this.shieldTexts(req, scope);
    return { scopeId: this.options.sealer.seal(scope.entries()), texts: r.texts, entityCounts: r.entityCounts, layers: r.layers, latencies: r.latencies };
  }

  /**
   * Tokenises the texts in a scope the caller holds in its own memory for
   * the length of its request (DATA_SHIELD_MODE=in_process): nothing is
   * sealed, and the reverse map never leaves the process.
   */
  async tokeniseInScope(req: TokeniseRequest): Promise<ScopedTokenisation> {
    const scope = new TokenScope();
    const r = await this.shieldTexts(req, scope);
    return { scope, texts: r.texts, entityCounts: r.entityCounts, layers: r.layers, latencies: r.latencies };
  }

  /**
   * The entities of every text (type and span, overlaps resolved), audited
   * as one tokenise call: the gateway's `/entities`, for a caller that makes
   * the tokens and keeps the reverse map itself (the LLM service).
   */
  async detectTexts(req: TokeniseRequest): Promise<TextsDetection> {
    const r = await this.shieldTexts(req, undefined);
    return { entities: r.entities, entityCounts: r.entityCounts, layers: r.layers, latencies: r.latencies };
  }

  /** Detection of every text with the request's selection and tenant, then (with a scope) the tokens; one audit row. */
  private async shieldTexts(
    req: TokeniseRequest,
    scope: TokenScope | undefined,
  ): Promise<{ texts: string[]; entities: DetectedEntity[][]; entityCounts: Record<string, number>; layers: Layer[]; latencies: Record<string, number> }> {
    const started = performance.now();
    const t0 = performance.now();
    const tenant = req.tenant ? await this.tenant(req.tenant) : undefined;
    const tenantMs = performance.now() - t0;
    const avoid = (token: string) => req.texts.some((t) => t.includes(token));
    const latencies: Record<string, number> = { tenant_ms: tenantMs, l1_ms: 0, l2_ms: 0, l3_ms: 0, resolve_ms: 0, ...(scope ? { tokenise_ms: 0 } : {}) };
    const counts: Record<string, number> = {};
    const layers = new Set<Layer>();
    const texts: string[] = [];
    const entities: DetectedEntity[][] = [];
    for (const text of req.texts) {
      const detection = this.options.engine.detect(text, { entityTypes: req.entityTypes, tenant });
      for (const stage of ['l1_ms', 'l2_ms', 'l3_ms', 'resolve_ms'] as const) latencies[stage]! += detection.latencies[stage];
      for (const l of detection.layers) layers.add(l);
      countByType(detection.entities, counts);
      entities.push(detection.entities);
      if (scope) {
        const t1 = performance.now();
        texts.push(scope.tokenise(text, detection.entities, avoid));
        latencies.tokenise_ms! += performance.now() - t1;
      }
    }
    const rounded: Record<string, number> = {};
    for (const [k, v] of Object.entries(latencies)) rounded[k] = round(v);
    rounded.total_ms = round(performance.now() - started);
    const layerList = (['L1', 'L2', 'L3'] as Layer[]).filter((l) => layers.has(l));
    this.audit(req, counts, layerList, rounded, req.texts);
    return { texts, entities, entityCounts: counts, layers: layerList, latencies: rounded };
  }

  /** Restores every token of the scope in the texts; unknown tokens are left as they are. Throws InvalidScopeError. */
  restore(scopeId: string, texts: string[]): string[] {
    const scope = new TokenScope(undefined, this.options.sealer.open(scopeId));
    return texts.map((t) => scope.restore(t));
  }

  /** A restorer for a reply that arrives in chunks. Throws InvalidScopeError. */
  streamRestorer(scopeId: string): StreamRestorer {
    return new StreamRestorer(new TokenScope(undefined, this.options.sealer.open(scopeId)));
  }

  /** What Data Shield would do with a text: the tokenised text and the entities (type, span, score, layer; never the value). */
  async preview(req: Omit<TokeniseRequest, 'texts'> & { text: string }): Promise<PreviewResult> {
    const started = performance.now();
    const t0 = performance.now();
    const tenant = req.tenant ? await this.tenant(req.tenant) : undefined;
    const tenantMs = performance.now() - t0;
    const detection = this.options.engine.detect(req.text, { entityTypes: req.entityTypes, tenant });
    const t1 = performance.now();
    const text = new TokenScope().tokenise(req.text, detection.entities, (token) => req.text.includes(token));
    const tokeniseMs = performance.now() - t1;
    const counts = countByType(detection.entities);
    const latencies = { tenant_ms: round(tenantMs), ...detection.latencies, tokenise_ms: round(tokeniseMs), total_ms: round(performance.now() - started) };
    this.audit({ ...req, context: { endpoint: 'preview', ...req.context } }, counts, detection.layers, latencies, [req.text]);
    return {
      text,
      entities: detection.entities.map((e) => ({ type: e.type, start: e.start, end: e.end, score: Math.round(e.score * 1000) / 1000, layer: e.layer })),
      entityCounts: counts,
      layers: detection.layers,
      latencies,
    };
  }

  /**
   * A tenant's compiled detectors: cached for tenantCacheMs, recompiled only
   * when they changed; empty when the source fails. A set that expired
   * less than one more tenantCacheMs ago is still used while a fresh one
   * loads in the background, so a tenant in steady use never waits for the
   * round trip to the public API and its database; an older set (and a
   * cache time of 0) is waited for, so a detector saved a while ago always
   * applies.
   */
  private async tenant(tenant: string): Promise<CompiledTenant> {
    const cached = this.tenants.get(tenant);
    const ttl = this.options.tenantCacheMs ?? 30_000;
    const age = cached ? this.now() - cached.fetchedAt : Infinity;
    if (cached && age < ttl) return cached.compiled;
    const inFlight = this.loading.get(tenant);
    const load = inFlight ?? this.loadTenant(tenant, cached).finally(() => this.loading.delete(tenant));
    if (!inFlight) this.loading.set(tenant, load);
    return cached && age < 2 * ttl ? cached.compiled : load;
  }

  private async loadTenant(tenant: string, cached: CachedTenant | undefined): Promise<CompiledTenant> {
    const source = this.options.tenants;
    if (!source) return this.options.engine.compileTenant(EMPTY_TENANT_DETECTORS(tenant));
    try {
      const detectors = await source.load(tenant);
      const version = createHash('sha256').update(JSON.stringify(detectors)).digest('hex');
      const compiled = cached && cached.version === version ? cached.compiled : this.options.engine.compileTenant(detectors);
      if (compiled.skipped.length && compiled !== cached?.compiled) {
        this.options.logger.warn('tenant detectors skipped: their regex does not compile in RE2', { tenant, skipped: compiled.skipped });
      }
      this.remember(tenant, { compiled, version, fetchedAt: this.now() });
      return compiled;
    } catch (err) {
      this.options.logger.warn('tenant detectors unavailable; using the built-in detectors only', { tenant, error: errorMessage(err) });
      const empty = this.options.engine.compileTenant(EMPTY_TENANT_DETECTORS(tenant));
      // Retried soon, not at every call.
      this.remember(tenant, { compiled: empty, version: '', fetchedAt: this.now() - (this.options.tenantCacheMs ?? 30_000) + FAILED_SOURCE_RETRY_MS });
      return empty;
    }
  }

  private remember(tenant: string, entry: CachedTenant): void {
    this.tenants.set(tenant, entry);
  }

  private audit(req: Omit<TokeniseRequest, 'texts'>, counts: Record<string, number>, layers: Layer[], latencies: Record<string, number>, texts: string[]): void {
    if (!this.options.audit) return;
    const event: ShieldAuditEvent = {
      action: 'data_shield.tokenise',
      tenant: req.tenant ?? null,
      actor_user: req.actorUserId ?? null,
      correlation_id: req.correlationId ?? null,
      endpoint: req.context?.endpoint ?? 'unknown',
      entity_counts: counts,
      entities_total: Object.values(counts).reduce((a, b) => a + b, 0),
      layers,
      latencies_ms: latencies,
      model: req.context?.model ?? null,
      provider: req.context?.provider ?? null,
      texts: texts.length,
      characters: texts.reduce((n, t) => n + t.length, 0),
      occurred_at: new Date(this.now()).toISOString(),
    };
    try {
      this.options.audit.emit(event);
    } catch (err) {
      this.options.logger.warn('data shield audit event dropped', { error: errorMessage(err) });
    }
  }
}

export { DetectorError };
