import type { Logger } from '@docflow/service-kit';
import { DetectionEngine } from '../engine/detection-engine';
import { BUILT_IN_ENTITY_TYPES } from '../entities';
import { defaultNamedEntityRecognizer } from '../l3/default-ner';
import type { NamedEntityRecognizer } from '../l3/named-entities';
import { ScopeSealer } from '../tokens/scope-seal';
import { TokenScope } from '../tokens/token-scope';
import { DmsAuditSink, DmsTenantDetectorSource } from './dms-clients';
import { ShieldService } from './shield-service';

export interface ShieldSettings {
  /** Which service runs it (the gateway, or the LLM service in process): named in service tokens. */
  service: string;
  logger: Logger;
  /** INTERNAL_SERVICE_JWT_SECRET: signs calls to the public API and keys scope handles. */
  jwtSecret: string;
  /** The public API (DMS_URL): tenant detectors and audit rows; none: built-in detectors, no audit. */
  dmsUrl?: string;
  auditDisabled: boolean;
  scopeTtlSeconds: number;
  tenantCacheSeconds: number;
  ner?: NamedEntityRecognizer;
}

export interface ShieldRuntime {
  service: ShieldService;
  engine: DetectionEngine;
  /** Sends what audit events are pending (call at shutdown). */
  close(): Promise<void>;
}

/** Builds Data Shield the same way for the gateway and for DATA_SHIELD_MODE=in_process. */
export function createShieldRuntime(settings: ShieldSettings): ShieldRuntime {
  const engine = new DetectionEngine({ ner: settings.ner ?? defaultNamedEntityRecognizer() });
  const dms = settings.dmsUrl ? { baseUrl: settings.dmsUrl, jwtSecret: settings.jwtSecret, service: settings.service } : undefined;
  const audit = dms && !settings.auditDisabled ? new DmsAuditSink({ ...dms, logger: settings.logger }) : undefined;
  const service = new ShieldService({
    engine,
    sealer: new ScopeSealer(settings.jwtSecret, settings.scopeTtlSeconds * 1000),
    logger: settings.logger,
    tenants: dms ? new DmsTenantDetectorSource(dms) : undefined,
    audit,
    tenantCacheMs: settings.tenantCacheSeconds * 1000,
  });
  return { service, engine, close: async () => audit?.close() };
}

/** A detection on a fixed sample: the engine loads and finds what it must (health). */
export function shieldSelfTest(engine: DetectionEngine): boolean {
  const sample = 'Contact jane@example.com or 4111 1111 1111 1111.';
  const found = engine.detect(sample, { entityTypes: ['EMAIL', 'CREDIT_CARD'] }).entities.map((e) => e.type);
  return found.includes('EMAIL') && found.includes('CREDIT_CARD');
}

const WARM_UP_TEXTS = [
  'Please ask Maria Keller at maria.keller@example.com or +44 20 7946 0958 about card 4111 1111 1111 1111.',
  'Refunds go to IBAN GB82 WEST 1234 5698 7654 32; the office of Acme Holdings Ltd is at 12 Baker Street, London, United Kingdom.',
  'Dr. Kenji Tanaka (SSN 123-45-6789, IP 192.168.10.4) met the German delegation on Monday, March 3, 2025 at 10:30 am.',
  'Extract the customer, e-mail and total as JSON.',
];

/**
 * Runs every layer and the tokens over a few sample texts, `rounds` times,
 * before the service takes calls: the first calls of a cold process ran the
 * tagger and the validators unoptimised (20 to 40 ms instead of about 1 ms).
 * Nothing is audited or kept.
 */
export function warmUpShield(engine: DetectionEngine, rounds = 60): void {
  for (let i = 0; i < rounds; i++) {
    for (const text of WARM_UP_TEXTS) {
      // The default selection, and every type (DATE_TIME too) every other round.
      const detection = engine.detect(text, { entityTypes: i % 2 ? BUILT_IN_ENTITY_TYPES : undefined });
      new TokenScope().tokenise(text, detection.entities);
    }
  }
}
