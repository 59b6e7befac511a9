import type { AuditLog, AuthGuards } from '../identity';
import { bindFeature, type MountableFeature, type PlatformServices } from '../platform';
import { dataShieldFeature } from './data-shield.feature';

export interface ShieldModuleDeps extends Pick<PlatformServices, 'config' | 'database' | 'openapi'> {
  auth: AuthGuards;
  audit: AuditLog;
}

export interface ShieldModule {
  features: { dataShield: MountableFeature };
}

/** Data Shield's routes in the public API: detectors, packs, per-agent and per-chatbot settings, preview, and the internal ones. */
export function createShieldModule(deps: ShieldModuleDeps): ShieldModule {
  return { features: { dataShield: bindFeature(dataShieldFeature, deps) } };
}
