import { openDatabase } from '@docflow/persistence';
import type { Logger } from '@docflow/service-kit';
import { AGENTS_ENTITIES, AGENTS_MIGRATIONS } from './agents';
import { DOCUMENTS_ENTITIES, DOCUMENTS_MIGRATIONS } from './documents';
import { IDENTITY_ENTITIES, IDENTITY_MIGRATIONS } from './identity';
import { CreateRateLimitCounters1764000000090, type PublicApiDatabase } from './platform';
import { RAG_ENTITIES, RAG_MIGRATIONS } from './rag';
import { SHIELD_ENTITIES, SHIELD_MIGRATIONS } from './shield';
import { WORKFLOWS_ENTITIES, WORKFLOWS_MIGRATIONS } from './workflows';

export type { PublicApiDatabase } from './platform';

export const MIGRATIONS_TABLE = 'public_api_migrations';

/** Every entity of the public API: each module's index lists its own. */
export const ENTITIES = [...IDENTITY_ENTITIES, ...DOCUMENTS_ENTITIES, ...RAG_ENTITIES, ...WORKFLOWS_ENTITIES, ...AGENTS_ENTITIES, ...SHIELD_ENTITIES];

/** Every migration of the public API, in timestamp order (the suffix of each class name); each module's index lists its own. */
export const MIGRATIONS = [
  CreateRateLimitCounters1764000000090,
  ...IDENTITY_MIGRATIONS,
  ...DOCUMENTS_MIGRATIONS,
  ...RAG_MIGRATIONS,
  ...WORKFLOWS_MIGRATIONS,
  ...AGENTS_MIGRATIONS,
  ...SHIELD_MIGRATIONS,
].sort((a, b) => timestampOf(a) - timestampOf(b));

function timestampOf(migration: { name: string }): number {
  return Number(/(\d{13})$/.exec(migration.name)?.[1] ?? Number.NaN);
}

/** Creates the database when missing, connects, and runs pending migrations (under an advisory lock). */
export function openPublicApiDatabase(url: string, logger?: Logger): Promise<PublicApiDatabase> {
  return openDatabase({ url, entities: ENTITIES, migrations: MIGRATIONS, migrationsTableName: MIGRATIONS_TABLE, logger });
}
