import { mkdirSync, writeFileSync } from 'node:fs';
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
