// Router round trip: POST /api/v1/jobs → workflow_queue → workflow processor →
// results_queue → router status `completed`, with all six services local.
import { randomUUID } from 'node:crypto';
import { Stack } from '../e2e/support/stack';
import { report, runConcurrent, summarize } from './support';

const TOTAL = Number(process.env.BENCH_JOBS ?? 2000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);

const definition = {
  nodes: [
    { id: 'start', type: 'start', data: { label: 'Start', task_type: 'custom_task', config: {} } },
    { id: 'end', type: 'end', data: { label: 'End', task_type: 'custom_task', config: {} } },
  ],
  edges: [{ id: 'e1', source: 'start', target: 'end' }],
};

async function roundTrip(stack: Stack, headers: Record<string, string>, pollMs: number): Promise<number> {
  const jobId = `bench_${randomUUID()}`;
  const started = performance.now();
  const res = await fetch(`${stack.url('router')}/api/v1/jobs`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ job_id: jobId, job_type: 'task_based_workflow', payload: { workflow_definition: definition, inputs: {} } }),
  });
  if (res.status !== 200) throw new Error(`submit answered ${res.status}`);
  await res.arrayBuffer();
  for (;;) {
    const s = await fetch(`${stack.url('router')}/api/v1/jobs/${jobId}`, { headers });
    const body = (await s.json()) as { status: string };
    if (body.status === 'completed') return performance.now() - started;
    if (body.status === 'failed') throw new Error(`job ${jobId} failed`);
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

async function main(): Promise<void> {
  const stack = await Stack.start({ portOffset: 500, env: { LOG_LEVEL: 'warn' } });
  try {
    const headers = { 'content-type': 'application/json', 'x-api-key': stack.env.ROUTER_API_KEY! };
    await runConcurrent(100, 8, async () => void (await roundTrip(stack, headers, 10)));

    const serial: number[] = [];
    await runConcurrent(200, 1, async () => void serial.push(await roundTrip(stack, headers, 1)));

    const latencies: number[] = [];
    const t0 = performance.now();
    // Status polls compete with the pipeline for the two cores: poll gently under load.
    await runConcurrent(TOTAL, CONCURRENCY, async () => void latencies.push(await roundTrip(stack, headers, 25)));
    const seconds = (performance.now() - t0) / 1000;

    const s1 = summarize(serial);
    const sc = summarize(latencies);
    report('router-roundtrip', [
      { scenario: 'concurrency 1', jobs: s1.n, 'jobs/s': +(1000 / s1.mean).toFixed(1), 'p50 ms': +s1.p50.toFixed(2), 'p95 ms': +s1.p95.toFixed(2) },
      { scenario: `concurrency ${CONCURRENCY}`, jobs: sc.n, 'jobs/s': +(TOTAL / seconds).toFixed(1), 'p50 ms': +sc.p50.toFixed(2), 'p95 ms': +sc.p95.toFixed(2) },
    ]);
  } finally {
    await stack.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
