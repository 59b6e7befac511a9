import type { Router } from 'express';
import type { Mailer } from '@docflow/mail';
import type { Logger, Metrics } from '@docflow/service-kit';
import type { PublicApiConfig } from './config';
import type { PublicApiDatabase } from './database';
import type { OpenApiRegistry } from './openapi/registry';
import type { RateLimits } from './rate-limits/rate-limits';

/** What the platform gives every module; a module's factory takes the part of it that it uses. */
export interface PlatformServices {
  config: PublicApiConfig;
  logger: Logger;
  metrics: Metrics;
  database: PublicApiDatabase;
  mailer: Mailer;
  /** Every route describes itself here; a test fails when a mounted route is missing from the document. */
  openapi: OpenApiRegistry;
  /** Rate limits and throttles, counted in the store every process shares. */
  limits: RateLimits;
}

/**
 * One feature of the public API (auth, users, documents, ...). `register`
 * mounts its routes on the router served under /api (paths relative to
 * /api) and describes each of them in `needs.openapi`. `Needs` names the
 * collaborators the feature uses, no more: its module's factory binds them
 * (`bindFeature`).
 */
export interface ApiFeature<Needs = object> {
  name: string;
  register(api: Router, needs: Needs): void;
}

/** A feature bound to its collaborators, ready to mount. */
export interface MountableFeature {
  name: string;
  mount(api: Router): void;
}

export function bindFeature<Needs>(feature: ApiFeature<Needs>, needs: Needs): MountableFeature {
  return { name: feature.name, mount: (api) => feature.register(api, needs) };
}
