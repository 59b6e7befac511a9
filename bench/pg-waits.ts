// What the stack's own database backends wait on, sampled from pg_stat_activity
// while a bench's measured window runs (BENCH_PG_WAITS=true in the pipeline and
// webhook benches; off by default, and then nothing is sampled). The sampler
// connects to the cluster's `postgres` database, so its own backend is not one
// of the stack's (the bench's backend CPU figure leaves it out). Every
// BENCH_PG_WAITS_MS (10) it counts the stack's backends by state and wait event
// (`Lock:object` on database 0 is the lock PostgreSQL takes in PreCommit_Notify
// and holds through the commit of every transaction that queued a NOTIFY), and
// the statement each `Lock:*` waiter runs.
import { Client } from 'pg';

export interface WaitSamples {
  /** Samples taken. */
  samples: number;
  /** Backend-samples per `state wait_event_type:wait_event` (active or idle in transaction only). */
  events: Record<string, number>;
  /** Backend-samples waiting on a lock, per the first 60 characters of their statement. */
  lockWaiters: Record<string, number>;
  /** Samples in which at least one of the stack's backends waited on `Lock:object`. */
  samplesWithObjectWait: number;
  /** Backend-samples idle in a transaction, per the first 60 characters of their last statement. */
  idleInTransaction: Record<string, number>;
  /** Backend-samples of other databases of the cluster waiting on `Lock:object` at the same moments. */
  otherObjectWaits: number;
}

export const pgWaitsEnabled = process.env.BENCH_PG_WAITS === 'true';

/** Starts sampling the database of `databaseUrl`; `stop()` answers the counts. */
export async function sampleWaits(databaseUrl: string, intervalMs = Number(process.env.BENCH_PG_WAITS_MS ?? 10)): Promise<{ stop(): Promise<WaitSamples> }> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.slice(1));
  url.pathname = '/postgres';
  const client = new Client({ connectionString: url.toString() });
  await client.connect();
  const out: WaitSamples = { samples: 0, events: {}, lockWaiters: {}, samplesWithObjectWait: 0, idleInTransaction: {}, otherObjectWaits: 0 };
  let running = true;
  const loop = (async () => {
    while (running) {
      const rows = (
        await client.query<{ mine: boolean; state: string; ev: string | null; q: string }>(
          `SELECT datname = $1 AS mine, state, wait_event_type || ':' || wait_event AS ev, left(regexp_replace(query, '\\s+', ' ', 'g'), 60) AS q
             FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid() AND state IN ('active', 'idle in transaction')`,
          [name],
        )
      ).rows;
      out.samples++;
      if (rows.some((r) => r.mine && r.ev === 'Lock:object')) out.samplesWithObjectWait++;
      for (const r of rows) {
        if (!r.mine) {
          if (r.ev === 'Lock:object') out.otherObjectWaits++;
          continue;
        }
        const key = `${r.state} ${r.ev ?? 'cpu'}`;
        out.events[key] = (out.events[key] ?? 0) + 1;
        if (r.ev?.startsWith('Lock:')) out.lockWaiters[`${r.ev} ${r.q}`] = (out.lockWaiters[`${r.ev} ${r.q}`] ?? 0) + 1;
        if (r.state === 'idle in transaction') out.idleInTransaction[r.q] = (out.idleInTransaction[r.q] ?? 0) + 1;
      }
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      await client.end();
      return out;
    },
  };
}

/** Prints the counts, most frequent first. */
export function printWaits(what: string, w: WaitSamples): void {
  console.log(`pg_stat_activity of the stack's database during ${what}: ${w.samples} samples; backend-samples by state and wait event:`);
  console.table(
    Object.entries(w.events)
      .sort((a, b) => b[1] - a[1])
      .map(([event, n]) => ({ event, n })),
  );
  console.log('lock waiters by statement:');
  console.table(
    Object.entries(w.lockWaiters)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 15)
      .map(([statement, n]) => ({ statement, n })),
  );
  console.log('idle in a transaction, by last statement:');
  console.table(
    Object.entries(w.idleInTransaction)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 10)
      .map(([statement, n]) => ({ statement, n })),
  );
  console.log(`samples with a Lock:object waiter of the stack: ${w.samplesWithObjectWait}; other databases' Lock:object waiters in the same samples: ${w.otherObjectWaits}`);
}
