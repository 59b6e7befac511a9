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

export function report(name: string, rows: Record<string, string | number>[], extra: Record<string, unknown> = {}): void {
  console.table(rows);
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
