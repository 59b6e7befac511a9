import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx]!;
}

export function summarize(latenciesMs: number[]): { p50: number; p95: number; p99: number; mean: number; n: number } {
  const s = [...latenciesMs].sort((a, b) => a - b);
  const mean = s.reduce((a, b) => a + b, 0) / (s.length || 1);
  return { p50: percentile(s, 50), p95: percentile(s, 95), p99: percentile(s, 99), mean, n: s.length };
}

/** Runs `worker` from `concurrency` loops until `total` iterations are done. */
export async function runConcurrent(total: number, concurrency: number, worker: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const i = next++;
        await worker(i);
      }
    }),
  );
}

/**
 * CPU milliseconds this process spends on a fixed piece of work like the services' own (JSON of small records,
 * SHA-256, string building), the least of five rounds: a yardstick for the machine's speed at the moment of a run,
 * so that figures taken on different days (this machine's speed has varied by a factor of about two between days)
 * can be read against each other. Lower is faster; it counts CPU time, so other processes' load moves it less than
 * wall time.
 */
export function machineReferenceMs(): number {
  let best = Infinity;
  for (let round = 0; round < 5; round++) {
    const t0 = process.cpuUsage();
    let acc = 0;
    for (let i = 0; i < 4000; i++) {
      const record = { id: i, status: 'completed', task_states: { start: { status: 'completed', result: { n: i } }, end: { status: 'completed' } }, at: `2026-11-27T00:00:${i % 60}Z` };
      const text = JSON.stringify(record);
      const back = JSON.parse(text) as { id: number };
      acc += back.id + createHash('sha256').update(text).digest()[0]!;
    }
    const used = process.cpuUsage(t0);
    if (acc < 0) throw new Error('unreachable');
    best = Math.min(best, (used.user + used.system) / 1000);
  }
  return +best.toFixed(2);
}

export function report(name: string, rows: Record<string, string | number>[], extra: Record<string, unknown> = {}): void {
  console.table(rows);
  const reference = machineReferenceMs();
  console.log(`machine reference: ${reference} ms of CPU for a fixed piece of work (bench/support.ts machineReferenceMs; lower is faster)`);
  extra = { machine_reference_ms: reference, ...extra };
  const dir = path.resolve(__dirname, '..', '..', 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify({ name, at: new Date().toISOString(), rows, ...extra }, null, 2));
  console.log(`written ${path.relative(process.cwd(), file)}`);
}

/**
 * CPU seconds (user + system) of the machine's PostgreSQL and RabbitMQ
 * processes, from /proc (Linux only; zero elsewhere). Backends that exit
 * between two readings drop out; the stack's pooled connections stay up.
 */
export function serverCpu(): { postgres: number; rabbitmq: number } {
  const out = { postgres: 0, rabbitmq: 0 };
  const ticks = 100; // USER_HZ on Linux
  let pids: string[] = [];
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return out;
  }
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const cpu = (Number(fields[11]) + Number(fields[12])) / ticks;
      if (name === 'postgres') out.postgres += cpu;
      else if (name === 'beam.smp') out.rabbitmq += cpu;
    } catch {
      // the process exited meanwhile
    }
  }
  return out;
}

/** CPU seconds (user + system) of one process, from /proc (0 when it is gone or not on Linux). */
function processCpu(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/**
 * One database's own share of PostgreSQL: the CPU seconds of the backends
 * connected to it (the machine's other databases, other runs' included, are
 * left out; the stack's pooled connections stay up between two readings) and
 * its committed transactions so far (pg_stat_database.xact_commit, every
 * statement outside an explicit transaction counting as one; flushed first).
 */
export async function databaseCounters(url: string): Promise<{ backendCpu: number; commits: number }> {
  const { Client } = await import('pg');
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('SELECT pg_stat_force_next_flush()');
    const pids = (await client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()')).rows;
    const commits = Number((await client.query<{ n: string }>('SELECT xact_commit AS n FROM pg_stat_database WHERE datname = current_database()')).rows[0]?.n ?? NaN);
    return { backendCpu: pids.reduce((sum, r) => sum + processCpu(r.pid), 0), commits };
  } finally {
    await client.end();
  }
}

/** User + system CPU seconds a service has used so far, from prom-client's process metrics on its /metrics. */
export async function serviceCpuSeconds(baseUrl: string): Promise<number> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  let total = 0;
  for (const name of ['process_cpu_user_seconds_total', 'process_cpu_system_seconds_total']) {
    const m = new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.e+-]+)$`, 'm').exec(text);
    if (!m?.[1]) throw new Error(`${baseUrl}/metrics has no ${name}`);
    total += Number(m[1]);
  }
  return total;
}
