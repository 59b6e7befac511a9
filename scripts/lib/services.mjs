// The six Docflow services, in the order `npm start` launches them: the
// leaves first (data-shield, llm-service), then the router and the
// processors, and the public API last. Health gates readiness, not this order.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './env.mjs';

export const SERVICES = [
  { name: 'data-shield', portVar: 'DATA_SHIELD_PORT', port: 8030 },
  { name: 'llm-service', portVar: 'LLM_SERVICE_PORT', port: 8020 },
  { name: 'router', portVar: 'ROUTER_PORT', port: 8010 },
  { name: 'workflow-processor', portVar: 'WORKFLOW_PROCESSOR_PORT', port: 8040 },
  { name: 'extraction-processor', portVar: 'EXTRACTION_PROCESSOR_PORT', port: 8050 },
  { name: 'public-api', portVar: 'PUBLIC_API_PORT', port: 1337 },
];

export function hasSource(name) {
  return existsSync(path.join(ROOT, 'apps', name, 'src', 'main.ts'));
}

export function entryOf(name) {
  return path.join(ROOT, 'dist', 'apps', name, 'main.js');
}

/** The port a service listens on in `env` (its variable, else the contract's default). */
export function portOf(service, env) {
  const raw = env[service.portVar];
  const n = raw === undefined || raw === '' ? service.port : Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 65535) throw new Error(`${service.portVar} is not a port number: ${raw}`);
  return n;
}
