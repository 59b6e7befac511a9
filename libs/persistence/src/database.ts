import { Client } from 'pg';
import { DataSource, EntitySchema, MixedList } from 'typeorm';
import type { HealthCheck, Logger } from '@docflow/service-kit';

export interface DatabaseOptions {
  url: string;
  /** Entity classes owned by the service. */
  entities: MixedList<string | (new () => unknown) | EntitySchema>;
  /** Migration classes owned by the service, in order. */
  migrations: MixedList<string | (new () => unknown)>;
  /** Each service records its migrations in its own table, e.g. `router_migrations`. */
  migrationsTableName: string;
  poolSize?: number;
  logger?: Logger;
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** Creates the database named in `url` when it does not exist yet (connecting to the `postgres` maintenance database). */
export async function ensureDatabase(url: string, logger?: Logger): Promise<void> {
  const target = new URL(url);
  const dbName = decodeURIComponent(target.pathname.replace(/^\//, '')) || 'postgres';
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [dbName]);
    if (found.rowCount === 0) {
      try {
        await client.query(`CREATE DATABASE ${quoteIdent(dbName)}`);
        logger?.info('database created', { database: dbName });
      } catch (err) {
        // Another replica created it between our check and our create.
        if ((err as { code?: string }).code !== '42P04') throw err;
      }
    }
  } finally {
    await client.end();
  }
}

export function createDataSource(options: DatabaseOptions): DataSource {
  return new DataSource({
    type: 'postgres',
    url: options.url,
    entities: options.entities,
    migrations: options.migrations,
    migrationsTableName: options.migrationsTableName,
    migrationsRun: false,
    synchronize: false,
    logging: false,
    extra: { max: options.poolSize ?? 10, connectionTimeoutMillis: 5000 },
  });
}

/** A fixed advisory-lock key per migrations table, so replicas never migrate the same schema at once. */
function lockKeyOf(table: string): number {
  let h = 0;
  for (const ch of table) h = (Math.imul(h, 31) + ch.charCodeAt(0)) | 0;
  return h;
}

/**
 * Opens the service's database: creates it when missing, connects, and runs
 * pending migrations under an advisory lock (several replicas may start together).
 */
export async function openDatabase(options: DatabaseOptions): Promise<DataSource> {
  await ensureDatabase(options.url, options.logger);
  const ds = createDataSource(options);
  await ds.initialize();
  const runner = ds.createQueryRunner();
  await runner.connect();
  const key = lockKeyOf(options.migrationsTableName);
  try {
    await runner.query('SELECT pg_advisory_lock($1)', [key]);
    const applied = await ds.runMigrations({ transaction: 'each' });
    if (applied.length) options.logger?.info('migrations applied', { migrations: applied.map((m) => m.name) });
  } finally {
    await runner.query('SELECT pg_advisory_unlock($1)', [key]).catch(() => undefined);
    await runner.release();
  }
  return ds;
}

export function databaseHealthCheck(ds: DataSource): HealthCheck {
  return {
    name: 'database',
    async check() {
      if (!ds.isInitialized) throw new Error('database not initialised');
      await ds.query('SELECT 1');
    },
  };
}

export async function closeDatabase(ds: DataSource): Promise<void> {
  if (ds.isInitialized) await ds.destroy();
}
