// The boundary rule has no exception for test files yet; integration specs need @docflow/testing.
import { createTestDatabase, type TestDatabase } from '@docflow/testing';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { createDataSource } from './database';
import { pgPool, querySqlPrepared, withPgTransaction } from './pg-pool';

let db: TestDatabase;
let ds: DataSource;

beforeAll(async () => {
  db = await createTestDatabase('docflow_pg_pool');
  // One connection, so every call below meets the same one.
  ds = createDataSource({ url: db.url, entities: [], migrations: [], migrationsTableName: 'pg_pool_migrations', poolSize: 1 });
  await ds.initialize();
});

afterAll(async () => {
  await ds?.destroy();
  await db?.drop();
});

/** The texts of the simple-protocol messages sent during `work`. */
async function sent<T>(work: () => Promise<T>): Promise<{ texts: string[]; result?: T; error?: unknown }> {
  const texts: string[] = [];
  const query = Client.prototype.query as (...args: unknown[]) => unknown;
  const spy = jest.spyOn(Client.prototype, 'query').mockImplementation(function (this: Client, ...args: unknown[]) {
    if (typeof args[0] === 'string') texts.push(args[0]);
    return query.apply(this, args);
  } as never);
  try {
    return { texts, result: await work() };
  } catch (error) {
    return { texts, error };
  } finally {
    spy.mockRestore();
  }
}

describe('querySqlPrepared', () => {
  const plusOne = { name: 'pg_pool_plus_one', text: 'PREPARE pg_pool_plus_one(int) AS SELECT $1 + 1 AS n' };

  it('prepares a statement once per connection, in the message that first runs it, and answers the message’s own results', async () => {
    const first = await sent(() => querySqlPrepared(ds, plusOne, 'SELECT 0 AS n; EXECUTE pg_pool_plus_one(41)'));
    expect(first.texts).toEqual([`${plusOne.text};\nSELECT 0 AS n; EXECUTE pg_pool_plus_one(41)`]);
    expect(first.result?.map((r) => r.rows)).toEqual([[{ n: 0 }], [{ n: 42 }]]);
    const second = await sent(() => querySqlPrepared(ds, plusOne, 'EXECUTE pg_pool_plus_one(1)'));
    expect(second.texts).toEqual(['EXECUTE pg_pool_plus_one(1)']);
    expect(second.result?.map((r) => r.rows)).toEqual([[{ n: 2 }]]);
  });

  it('plans a statement marked custom with each call’s values: its message sets the plan mode for its own transaction only', async () => {
    const mode = { name: 'pg_pool_plan_mode', text: "PREPARE pg_pool_plan_mode(int) AS SELECT $1 AS n, current_setting('plan_cache_mode') AS mode", plan: 'custom' as const };
    const first = await sent(() => querySqlPrepared(ds, mode, 'EXECUTE pg_pool_plan_mode(1)'));
    expect(first.texts).toEqual([`${mode.text};\nSET LOCAL plan_cache_mode = force_custom_plan;\nEXECUTE pg_pool_plan_mode(1)`]);
    expect(first.result?.map((r) => r.rows)).toEqual([[{ n: 1, mode: 'force_custom_plan' }]]);
    const second = await sent(() => querySqlPrepared(ds, mode, 'EXECUTE pg_pool_plan_mode(2)'));
    expect(second.result?.map((r) => r.rows)).toEqual([[{ n: 2, mode: 'force_custom_plan' }]]);
    const after = (await querySqlPrepared(ds, plusOne, "SELECT current_setting('plan_cache_mode') AS mode")).map((r) => r.rows);
    expect(after).toEqual([[{ mode: 'auto' }]]);
  });

  it('knows the statement is held after a later statement of its first message failed (PREPARE is not undone)', async () => {
    const half = { name: 'pg_pool_half', text: 'PREPARE pg_pool_half(int) AS SELECT $1 / 2 AS n' };
    const failed = await sent(() => querySqlPrepared(ds, half, 'EXECUTE pg_pool_half(4); SELECT 1 / 0'));
    expect(String(failed.error)).toContain('division by zero');
    const again = await sent(() => querySqlPrepared(ds, half, 'EXECUTE pg_pool_half(8)'));
    expect(again.texts).toEqual(['EXECUTE pg_pool_half(8)']);
    expect(again.result?.[0]?.rows).toEqual([{ n: 4 }]);
  });

  it('prepares again on a connection that lost the statement: the call that meets its absence fails, the next succeeds', async () => {
    await querySqlPrepared(ds, plusOne, 'EXECUTE pg_pool_plus_one(1)');
    await pgPool(ds).query('DEALLOCATE pg_pool_plus_one');
    const lost = await sent(() => querySqlPrepared(ds, plusOne, 'EXECUTE pg_pool_plus_one(1)'));
    expect((lost.error as { code?: string }).code).toBe('26000');
    const next = await sent(() => querySqlPrepared(ds, plusOne, 'EXECUTE pg_pool_plus_one(2)'));
    expect(next.texts).toEqual([`${plusOne.text};\nEXECUTE pg_pool_plus_one(2)`]);
    expect(next.result?.[0]?.rows).toEqual([{ n: 3 }]);
  });
});

describe('a connection that dies while it is checked out', () => {
  const terminate = async (pid: number) => {
    const admin = new Client({ connectionString: db.url });
    await admin.connect();
    try {
      await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    } finally {
      await admin.end();
    }
  };
  const uncaught: unknown[] = [];
  const record = (err: unknown) => uncaught.push(err);

  beforeEach(() => {
    uncaught.length = 0;
    process.on('uncaughtException', record);
  });
  afterEach(() => {
    process.removeListener('uncaughtException', record);
  });

  it('fails the transaction, raises no unhandled error event, and is not given back: the next call gets a live one', async () => {
    const outcome = await withPgTransaction(ds, async (tx) => {
      const pid = ((await tx.query('SELECT pg_backend_pid() AS pid')).rows[0] as { pid: number }).pid;
      await terminate(pid);
      // The socket's end reaches the client between statements, while the transaction holds it.
      await new Promise((resolve) => setTimeout(resolve, 200));
      return tx.query('SELECT 1');
    }).then(
      () => 'committed',
      (err: unknown) => String(err),
    );
    expect(outcome).toMatch(/terminat|not queryable/i);
    expect(uncaught).toEqual([]);
    expect((await pgPool(ds).query('SELECT 2 AS n')) as unknown).toMatchObject({ rows: [{ n: 2 }] });
  });

  it('fails a prepared message whose backend is terminated, with no unhandled error event', async () => {
    const slow = { name: 'pg_pool_slow', text: 'PREPARE pg_pool_slow(float8) AS SELECT pg_sleep($1) AS slept' };
    const pid = ((await pgPool(ds).query('SELECT pg_backend_pid() AS pid')) as { rows: { pid: number }[] }).rows[0]!.pid;
    const running = querySqlPrepared(ds, slow, 'EXECUTE pg_pool_slow(5)').then(
      () => 'answered',
      (err: unknown) => String(err),
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    await terminate(pid);
    expect(await running).toMatch(/terminat/i);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(uncaught).toEqual([]);
    expect((await pgPool(ds).query('SELECT 3 AS n')) as unknown).toMatchObject({ rows: [{ n: 3 }] });
  });
});
