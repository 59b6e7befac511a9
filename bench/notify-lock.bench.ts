// The notify lock on its own (docs/decisions.md, "Execution changes announced after their commit"): a
// transaction that queued a NOTIFY takes one lock for the whole cluster before its commit record and holds
// it through its WAL flush. BENCH_WRITERS (2: the start batches and the results batches of one API process)
// connections each update a batch of BENCH_BATCH (8) rows of their own in one message (an advisory lock,
// then the UPDATE), as fast as they can, in blocks of BENCH_BLOCK_MS (4000) alternating two modes, BENCH_PAIRS
// (4) pairs after one warm-up pair:
//   trigger: an AFTER UPDATE trigger NOTIFYs each changed row (what every writer did before);
//   caller:  the message sets docflow.announce=caller, the trigger stays silent, the UPDATE returns the payloads
//            and a separate connection NOTIFYs them after the commit, grouped (what starts and one-message
//            result batches do now), not awaited by the writer.
// A LISTENing connection receives everything. Reports batches committed per second and CPU ms of the
// database backends (writers, listener, announcer) per batch, per block and as means. The table and trigger
// copy the shape of workflow_executions' (two indexed columns changed, the same WHEN), not its size.
import { loadavg } from 'node:os';
import { readFileSync } from 'node:fs';
import { Client } from 'pg';
import { createTestDatabase } from '@docflow/testing';
import { report } from './support';

const WRITERS = Number(process.env.BENCH_WRITERS ?? 2);
const BATCH = Number(process.env.BENCH_BATCH ?? 8);
const BLOCK_MS = Number(process.env.BENCH_BLOCK_MS ?? 4000);
const PAIRS = Number(process.env.BENCH_PAIRS ?? 4);
type Mode = 'trigger' | 'caller';

function backendCpu(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

async function connect(url: string): Promise<{ c: Client; pid: number }> {
  const c = new Client({ connectionString: url });
  await c.connect();
  return { c, pid: (await c.query<{ p: number }>('SELECT pg_backend_pid() AS p')).rows[0]!.p };
}

async function main(): Promise<void> {
  const db = await createTestDatabase('docflow_bench_notify');
  const clients: Client[] = [];
  try {
    const setup = await connect(db.url);
    clients.push(setup.c);
    await setup.c.query(`
      CREATE TABLE t (id int PRIMARY KEY, user_id int, status text, task_states jsonb, updated_at timestamptz);
      CREATE INDEX t_user_status ON t (user_id, status);
      INSERT INTO t SELECT g, g % 3, 'queued', '{}'::jsonb, now() FROM generate_series(1, ${WRITERS * BATCH}) g;
      CREATE FUNCTION payload(e t) RETURNS text LANGUAGE plpgsql STABLE AS $$ BEGIN RETURN e.id::text; END $$;
      CREATE FUNCTION changed() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_notify('c', payload(NEW)); RETURN NULL; END $$;
      CREATE TRIGGER t_changed AFTER UPDATE ON t FOR EACH ROW
        WHEN ((OLD.status IS DISTINCT FROM NEW.status OR OLD.task_states IS DISTINCT FROM NEW.task_states)
              AND current_setting('docflow.announce', true) IS DISTINCT FROM 'caller')
        EXECUTE FUNCTION changed();`);
    const ear = await connect(db.url);
    clients.push(ear.c);
    let heard = 0;
    ear.c.on('notification', () => heard++);
    await ear.c.query('LISTEN c');
    const announcer = await connect(db.url);
    clients.push(announcer.c);
    const writers = await Promise.all(
      Array.from({ length: WRITERS }, async (_, w) => ({ ...(await connect(db.url)), ids: `'{${Array.from({ length: BATCH }, (_, i) => w * BATCH + i + 1).join(',')}}'::int[]` })),
    );
    clients.push(...writers.map((w) => w.c));
    const pids = [...writers.map((w) => w.pid), ear.pid, announcer.pid];

    // The announcer: what arrives while a NOTIFY statement is in flight goes in the next one.
    let queue: string[] = [];
    let inflight: Promise<void> | undefined;
    const announce = (payloads: string[]) => {
      queue.push(...payloads);
      inflight ??= (async () => {
        while (queue.length) {
          const values = queue;
          queue = [];
          await announcer.c.query({ name: 'announce', text: 'SELECT count(pg_notify($1, p))::int AS n FROM unnest($2::text[]) AS p', values: ['c', values] });
        }
        inflight = undefined;
      })();
    };

    let flip = 0;
    const block = async (mode: Mode) => {
      const end = Date.now() + BLOCK_MS;
      let batches = 0;
      const cpu0 = pids.reduce((s, p) => s + backendCpu(p), 0);
      await Promise.all(
        writers.map(async (w) => {
          while (Date.now() < end) {
            const status = flip++ % 2 ? 'running' : 'queued';
            const update = `UPDATE t SET status = '${status}', task_states = task_states || '{"n":1}', updated_at = now() WHERE id = ANY(${w.ids})`;
            if (mode === 'trigger') {
              await w.c.query(`SELECT pg_advisory_xact_lock(1, ${w.pid}); ${update} RETURNING id`);
            } else {
              const r = (await w.c.query(
                `SELECT pg_advisory_xact_lock(1, ${w.pid}), set_config('docflow.announce', 'caller', true);
                 ${update} RETURNING id, CASE WHEN current_setting('docflow.announce', true) = 'caller' THEN payload(t) END AS announce`,
              )) as unknown as { rows: { announce: string }[] }[];
              announce(r[1]!.rows.map((x) => x.announce));
            }
            batches++;
          }
        }),
      );
      await inflight;
      const cpu1 = pids.reduce((s, p) => s + backendCpu(p), 0);
      return { mode, 'batches/s': +(batches / (BLOCK_MS / 1000)).toFixed(1), 'backend CPU ms/batch': +(((cpu1 - cpu0) * 1000) / batches).toFixed(3), load: +loadavg()[0]!.toFixed(1) };
    };

    await block('trigger');
    await block('caller');
    const blocks: Awaited<ReturnType<typeof block>>[] = [];
    for (let i = 0; i < PAIRS; i++) for (const mode of (i % 2 ? ['caller', 'trigger'] : ['trigger', 'caller']) as Mode[]) blocks.push(await block(mode));
    console.table(blocks);
    const mean = (mode: Mode, key: 'batches/s' | 'backend CPU ms/batch') => {
      const xs = blocks.filter((b) => b.mode === mode).map((b) => b[key]);
      return +(xs.reduce((a, b) => a + b, 0) / xs.length).toFixed(3);
    };
    report(
      'notify-lock',
      (['trigger', 'caller'] as Mode[]).map((mode) => ({
        scenario: `${mode}: ${WRITERS} writers, ${BATCH} rows per batch, ${PAIRS} blocks of ${BLOCK_MS} ms`,
        'mean batches/s': mean(mode, 'batches/s'),
        'mean backend CPU ms/batch': mean(mode, 'backend CPU ms/batch'),
      })),
      { blocks, notifications_heard: heard },
    );
  } finally {
    for (const c of clients) await c.end().catch(() => undefined);
    await db.drop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
