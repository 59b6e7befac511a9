import { checkEntityType } from '@docflow/data-shield';
import { BadRequestError, isPlainObject } from '@docflow/service-kit';
import type { AuditEntry } from '../identity';

const MAX_EVENTS = 500;
const LAYERS = new Set(['L1', 'L2', 'L3']);

const shortText = (v: unknown, max: number): string | null => (typeof v === 'string' && v.length > 0 ? v.slice(0, max) : null);
const count = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.floor(v) : 0);

/**
 * The audit rows of a batch the Data Shield gateway (or the LLM service in
 * process) sends: one `data_shield.tokenise` row per shielded call (spec
 * 2.19). Only counts, type names, layers, latencies, model and provider are
 * kept; whatever else an event holds is dropped, so no value can reach the
 * table. Entity counts are a list of `{type, count}`: type names such as
 * EMAIL or PHONE as keys would read as personal fields to the audit log's
 * redaction and be blanked.
 */
export function auditEntriesOf(body: unknown, retentionDays: number): AuditEntry[] {
  const events = isPlainObject(body) ? body['events'] : undefined;
  if (!Array.isArray(events) || events.length > MAX_EVENTS) throw BadRequestError.withErrors('Invalid audit events', [`events must be an array of at most ${MAX_EVENTS} events`]);
  const entries: AuditEntry[] = [];
  for (const e of events) {
    if (!isPlainObject(e) || e['action'] !== 'data_shield.tokenise') continue;
    const counts = isPlainObject(e['entity_counts']) ? e['entity_counts'] : {};
    const entityCounts = Object.entries(counts)
      .filter(([type]) => checkEntityType(type).ok)
      .map(([type, n]) => ({ type, count: count(n) }));
    const latencies = isPlainObject(e['latencies_ms']) ? e['latencies_ms'] : {};
    const actor = e['actor_user'];
    entries.push({
      action: 'data_shield.tokenise',
      actorUserId: typeof actor === 'number' && Number.isSafeInteger(actor) && actor > 0 ? actor : null,
      tenant: shortText(e['tenant'], 100),
      ...(shortText(e['correlation_id'], 128) ? { correlationId: shortText(e['correlation_id'], 128)! } : {}),
      retentionDays,
      details: {
        endpoint: shortText(e['endpoint'], 40) ?? 'unknown',
        entity_counts: entityCounts,
        entities_total: entityCounts.reduce((n, c) => n + c.count, 0),
        layers: Array.isArray(e['layers']) ? e['layers'].filter((l): l is string => typeof l === 'string' && LAYERS.has(l)) : [],
        latencies_ms: Object.fromEntries(
          Object.entries(latencies)
            .filter(([k, v]) => /^[a-z0-9_]{1,30}$/.test(k) && typeof v === 'number' && Number.isFinite(v))
            .slice(0, 20),
        ),
        model: shortText(e['model'], 200),
        provider: shortText(e['provider'], 40),
        texts: count(e['texts']),
        characters: count(e['characters']),
      },
    });
  }
  return entries;
}
