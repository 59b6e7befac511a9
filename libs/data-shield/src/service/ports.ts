import type { Layer } from '../entities';
import type { TenantDetectors } from '../tenant/tenant-detectors';

/** Where a tenant's detectors come from (the public API, over an internal route). */
export interface TenantDetectorSource {
  /** Rejects when the source cannot be reached; the service then uses an empty set (spec 4.17 rule 8). */
  load(tenant: string): Promise<TenantDetectors>;
}

/** One `data_shield.tokenise` audit row (spec 2.19): counts, layers, latencies, model; never a value. */
export interface ShieldAuditEvent {
  action: 'data_shield.tokenise';
  tenant: string | null;
  actor_user: number | null;
  correlation_id: string | null;
  endpoint: string;
  entity_counts: Record<string, number>;
  entities_total: number;
  layers: Layer[];
  latencies_ms: Record<string, number>;
  model: string | null;
  provider: string | null;
  texts: number;
  characters: number;
  occurred_at: string;
}

/** Takes audit events; never throws and never waits (a failed write must not fail the call, rule 8). */
export interface AuditSink {
  emit(event: ShieldAuditEvent): void;
}
