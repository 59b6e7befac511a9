import type { DataSource } from 'typeorm';

/** One result of node-postgres; a multi-statement text gives one per statement. */
export interface PgResult {
  rows: Record<string, unknown>[];
}

/** The part of node-postgres' pool the hot paths use. */
export interface PgPool {
  query(text: string, values?: unknown[]): Promise<PgResult | PgResult[]>;
  query(config: { name: string; text: string; values: unknown[] }): Promise<PgResult>;
}

/**
 * node-postgres' pool under a PostgreSQL DataSource: one round trip per call,
 * without TypeORM's query runner or entity hydration (about 0.15 ms of CPU
 * less per query), for the statements on request and message hot paths.
 */
export function pgPool(ds: DataSource): PgPool {
  return (ds.driver as unknown as { master: PgPool }).master;
}

/** The rows of the last statement of a (possibly multi-statement) query. */
export async function queryRows<T>(ds: DataSource, text: string, values: unknown[] = []): Promise<T[]> {
  const result = await pgPool(ds).query(text, values);
  return (Array.isArray(result) ? (result[result.length - 1]?.rows ?? []) : result.rows) as T[];
}

/**
 * A named prepared statement: each pooled connection parses and plans it
 * once instead of on every call. List result columns explicitly, so that a
 * migration adding columns cannot invalidate a cached plan.
 */
export async function preparedRows<T>(ds: DataSource, name: string, text: string, values: unknown[]): Promise<T[]> {
  return (await pgPool(ds).query({ name, text, values })).rows as T[];
}

/** A connection of the pool inside a transaction: plain and named (prepared) statements. */
export interface PgTransaction {
  query(text: string, values?: unknown[]): Promise<PgResult>;
  query(config: { name: string; text: string; values: unknown[] }): Promise<PgResult>;
}

interface PgPoolClient extends PgTransaction {
  release(err?: Error | boolean): void;
  on(event: 'error', listener: (err: Error) => void): unknown;
  removeListener(event: 'error', listener: (err: Error) => void): unknown;
}

/**
 * Runs `work` in one transaction on one pooled connection of node-postgres
 * (BEGIN, the statements, COMMIT: one commit for everything `work` sends),
 * rolled back when it throws. Named statements stay prepared on the
 * connection, as with `preparedRows`.
 */
export async function withPgTransaction<T>(ds: DataSource, work: (tx: PgTransaction) => Promise<T>): Promise<T> {
  const client = await checkOut(ds);
  let broken: Error | undefined;
  const lost = (err: Error) => (broken = err);
  client.on('error', lost);
  try {
    await client.query('BEGIN');
    const out = await work(client);
    await client.query('COMMIT');
    return out;
  } catch (err) {
    await client.query('ROLLBACK').catch((rollbackErr: unknown) => {
      // A connection that cannot roll back is not given back to the pool.
      broken = rollbackErr instanceof Error ? rollbackErr : new Error(String(rollbackErr));
    });
    throw err;
  } finally {
    client.removeListener('error', lost);
    client.release(broken);
  }
}

/**
 * A connection of the pool, for statements sent one after the other. node-postgres' pool stops listening for its
 * errors while it is checked out, and a connection that dies then (a backend terminated, a database restart) emits
 * `error` once its socket ends, after the failed statement has already answered: with no listener that event would
 * end the process. The callers listen for it while they hold the connection, and do not give a dead one back.
 */
function checkOut(ds: DataSource): Promise<PgPoolClient> {
  return (pgPool(ds) as unknown as { connect(): Promise<PgPoolClient> }).connect();
}

/** The SQL-level prepared statements (PREPARE) each pooled connection holds, by name. */
const sqlPrepared = new WeakMap<object, Set<string>>();

/** A statement prepared with SQL (`PREPARE name(types) AS ...`), run by `EXECUTE name(...)` inside a simple-protocol message. */
export interface SqlPreparedStatement {
  name: string;
  /** The whole `PREPARE` statement. */
  text: string;
  /**
   * `custom`: planned for each call's values (the message's transaction sets
   * `plan_cache_mode = force_custom_plan`), still parsed once per connection.
   * After five runs PostgreSQL may otherwise keep a generic plan, which can
   * be far slower for skewed values (one owner with thousands of rows).
   */
  plan?: 'custom';
}

const CUSTOM_PLAN = 'SET LOCAL plan_cache_mode = force_custom_plan';

/**
 * A simple-protocol message (several statements, one implicit transaction,
 * one round trip) that EXECUTEs the SQL-level prepared `statement`: a
 * connection that does not hold it yet gets its PREPARE first in the same
 * message, so each connection parses and plans it once instead of the
 * message's text being parsed and planned on every call. Answers the results
 * of `message`'s own statements. PREPARE is not undone when a later
 * statement of the message fails, so after an error the connection is asked
 * what it holds.
 */
export async function querySqlPrepared(ds: DataSource, statement: SqlPreparedStatement, message: string): Promise<PgResult[]> {
  const client = await checkOut(ds);
  let held = sqlPrepared.get(client);
  if (!held) sqlPrepared.set(client, (held = new Set()));
  const fresh = !held.has(statement.name);
  let broken: Error | undefined;
  const lost = (err: Error) => (broken = err);
  client.on('error', lost);
  try {
    const head = [...(fresh ? [statement.text] : []), ...(statement.plan === 'custom' ? [CUSTOM_PLAN] : [])];
    const result = (await client.query(head.length ? `${head.join(';\n')};\n${message}` : message)) as PgResult | PgResult[];
    held.add(statement.name);
    const list = Array.isArray(result) ? result : [result];
    return list.slice(head.length);
  } catch (err) {
    held.delete(statement.name);
    const found = await client.query({ name: 'pg_pool_sql_prepared', text: 'SELECT 1 FROM pg_prepared_statements WHERE name = $1', values: [statement.name] }).then(
      (r) => r.rows.length > 0,
      (lookupErr: unknown) => {
        // A connection that cannot answer is not given back to the pool.
        broken = lookupErr instanceof Error ? lookupErr : new Error(String(lookupErr));
        return false;
      },
    );
    if (found) held.add(statement.name);
    throw err;
  } finally {
    client.removeListener('error', lost);
    client.release(broken);
  }
}

/** An integer written into a simple-protocol message (which takes no parameters); anything else throws. */
export function sqlInt(n: number): string {
  if (!Number.isSafeInteger(n)) throw new Error(`not an integer: ${n}`);
  return String(n);
}

const QUOTE_OR_BACKSLASH = /['\\]/g;

/**
 * A string written into a simple-protocol message as a literal: the text node-postgres' escapeLiteral gives
 * (quotes and backslashes doubled, ` E'...'` when there is a backslash), built with one replace instead of one
 * concatenation per character. A results batch's rows are tens of kilobytes of JSON, and escapeLiteral's
 * per-character string was a tenth of what the public API allocated under the webhook bench.
 */
export function sqlLiteral(text: string): string {
  const doubled = text.replace(QUOTE_OR_BACKSLASH, '$&$&');
  return text.includes('\\') ? ` E'${doubled}'` : `'${doubled}'`;
}
