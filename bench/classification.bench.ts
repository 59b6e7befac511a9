// Classification jobs with the local engine (no provider configured), end to
// end with all six services local: POST /jobs/collection/{id}/generate →
// router → extraction_queue → extraction processor (per document: its text
// from the public API, phase 1 classification and phase 2 prompt matching,
// two LLM-service calls) → results_queue → router → GET /jobs/{id}/status.
//
// Alice uploads DOCUMENTS text documents (invoices, receipts, contracts,
// letters and memos of about 1 KB, each different) into one collection. Then:
//   - concurrency 1: one-document jobs, start-to-completed latency (polling
//     every 5 ms);
//   - concurrency C: JOBS jobs of DOCS_PER_JOB documents each, polling every
//     50 ms: jobs/s and documents/s, and the CPU each service used.
// The extraction processor runs with its defaults (EXTRACTION_PREFETCH 4 jobs,
// EXTRACTION_DOCUMENT_CONCURRENCY 2 documents per job) unless the environment
// sets them.
import { createCollection, uploadText, waitForJob } from '../e2e/support/document-jobs';
import { SERVICES, Stack, type ServiceName } from '../e2e/support/stack';
import { WorkflowApi } from '../e2e/support/workflow-api';
import { report, runConcurrent, summarize } from './support';

const DOCUMENTS = Number(process.env.BENCH_DOCUMENTS ?? 100);
const JOBS = Number(process.env.BENCH_JOBS ?? 200);
const DOCS_PER_JOB = Number(process.env.BENCH_DOCS_PER_JOB ?? 5);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const SERIAL = Number(process.env.BENCH_SERIAL ?? 50);
const PROCESSOR_ENV = Object.fromEntries(['EXTRACTION_PREFETCH', 'EXTRACTION_DOCUMENT_CONCURRENCY'].flatMap((k) => (process.env[k] ? [[k, process.env[k]!]] : [])));

/** A document of one of five kinds, different for every i. */
function documentText(i: number): string {
  const n = 1000 + i;
  switch (i % 5) {
    case 0:
      return [
        `INVOICE INV-2024-${n}`,
        `From: Supplier ${i} Ltd`,
        'To: Globex Corporation',
        ...Array.from({ length: 8 }, (_, k) => `Line item ${k + 1}: ${k + 2} x article ${i}-${k} at ${(12.5 + k).toFixed(2)} EUR`),
        `VAT: ${(i * 1.7).toFixed(2)} EUR`,
        `Amount due: ${(150 + i).toFixed(2)} EUR`,
        'Please pay within 30 days.',
      ].join('\n');
    case 1:
      return [
        `Corner Store #${i}`,
        'Thank you for shopping with us!',
        ...Array.from({ length: 8 }, (_, k) => `Item ${k + 1} ${(k + 1.25).toFixed(2)}`),
        `Total paid by card: ${(40 + i).toFixed(2)} USD`,
        'Change: 0.00',
      ].join('\n');
    case 2:
      return (
        `SERVICES AGREEMENT ${n}. This agreement is made between Acme Corp ("Provider") and Client ${i} ("Client"). ` +
        'The term of this agreement is twelve months from the effective date. The Provider shall deliver the services described in Schedule A. ' +
        'Either party may terminate this agreement with thirty days written notice. This agreement is governed by the laws of the State of New York. ' +
        'Obligations of confidentiality survive termination. Signatures of both parties follow.'
      );
    case 3:
      return (
        `Dear Ms Jansen,\n\nThank you for your letter of ${(i % 28) + 1} March about order ${n}. We are sorry that the delivery was late. ` +
        'We have asked our warehouse to ship the remaining items this week, and we will refund the shipping costs.\n\nKind regards,\nCustomer Service'
      );
    default:
      return (
        `Quarterly operations report ${n}. Findings: picking accuracy reached 99.${i % 10} percent and outbound volume grew by ${i % 20} percent. ` +
        'Analysis of the results shows that the new conveyor line removed the main bottleneck. Recommendations: extend the night shift and ' +
        'review the forklift safety training. Conclusions will be presented to the board.'
      );
  }
}

interface Snapshot {
  /** CPU seconds (user + system) the process has used. */
  cpu: number;
  /** Per `METHOD route` (and `job` for the processor's job histogram): [sum of seconds, count]. */
  times: Map<string, [number, number]>;
}

async function snapshot(stack: Stack): Promise<Record<ServiceName, Snapshot>> {
  const out = {} as Record<ServiceName, Snapshot>;
  for (const s of SERVICES) {
    const text = await (await fetch(`${stack.url(s)}/metrics`)).text();
    const value = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
    const times = new Map<string, [number, number]>();
    const add = (key: string, which: string, v: number) => {
      const entry = times.get(key) ?? [0, 0];
      entry[which === 'sum' ? 0 : 1] += v;
      times.set(key, entry);
    };
    for (const m of text.matchAll(/^http_request_duration_seconds_(sum|count)\{([^}]*)\} (\S+)$/gm)) {
      const labels = Object.fromEntries([...m[2]!.matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1]!, l[2]!]));
      add(`${labels['method']} ${labels['route']}`, m[1]!, Number(m[3]));
    }
    for (const m of text.matchAll(/^extraction_job_duration_seconds_(sum|count)(?:\{[^}]*\})? (\S+)$/gm)) add('job (extraction_job_duration_seconds)', m[1]!, Number(m[2]));
    out[s] = { cpu: value('process_cpu_user_seconds_total') + value('process_cpu_system_seconds_total'), times };
  }
  return out;
}

/** Mean server-side time (ms) of the busy routes, and of processor jobs, between two snapshots. */
function timeMeans(a: Record<ServiceName, Snapshot>, b: Record<ServiceName, Snapshot>): Record<string, string | number>[] {
  const rows: Record<string, string | number>[] = [];
  for (const s of SERVICES) {
    for (const [key, [sum, count]] of b[s].times) {
      const [sum0, count0] = a[s].times.get(key) ?? [0, 0];
      if (count - count0 < 20) continue;
      rows.push({ service: s, what: key, count: count - count0, 'mean ms': +(((sum - sum0) / (count - count0)) * 1000).toFixed(2) });
    }
  }
  return rows;
}

/** Submits one job over `documentIds` and waits for it; the time from submit to seeing `completed`. */
async function runJob(api: WorkflowApi, collectionId: number, documentIds: number[], pollMs: number): Promise<number> {
  const t0 = performance.now();
  const submitted = await api.request<{ job_id: string }>('POST', `/jobs/collection/${collectionId}/generate`, { job_type: 'classification', document_ids: documentIds });
  if (submitted.status !== 200) throw new Error(`generate answered ${submitted.status}: ${JSON.stringify(submitted.body)}`);
  const job = await waitForJob(api, submitted.body.job_id, 120000, pollMs);
  if (job.status !== 'completed') throw new Error(`job ${job.job_id} ${job.status}: ${job.error}`);
  const classified = job.result?.documents?.length ?? 0;
  if (classified !== documentIds.length) throw new Error(`job ${job.job_id} classified ${classified} of ${documentIds.length} documents`);
  return performance.now() - t0;
}

async function main(): Promise<void> {
  const stack = await Stack.start({ portOffset: 700, env: { LOG_LEVEL: 'warn', ...PROCESSOR_ENV } });
  try {
    const alice = await WorkflowApi.login(stack.api, 'alice@docflow.local', 'Alice#Pass123');
    const ids: number[] = [];
    await runConcurrent(DOCUMENTS, 8, async (i) => void ids.push(await uploadText(alice, `bench document ${i}`, documentText(i))));
    ids.sort((a, b) => a - b);
    const collectionId = await createCollection(alice, 'classification bench', ids);
    const pick = (j: number, size: number) => Array.from({ length: size }, (_, k) => ids[(j * size + k) % ids.length]!);

    await runConcurrent(20, 4, async (j) => void (await runJob(alice, collectionId, pick(j, DOCS_PER_JOB), 20))); // warm-up

    const serialBefore = await snapshot(stack);
    const serial: number[] = [];
    await runConcurrent(SERIAL, 1, async (j) => void serial.push(await runJob(alice, collectionId, pick(j, 1), 5)));

    const before = await snapshot(stack);
    const latencies: number[] = [];
    const t0 = performance.now();
    await runConcurrent(JOBS, CONCURRENCY, async (j) => void latencies.push(await runJob(alice, collectionId, pick(j, DOCS_PER_JOB), 50)));
    const seconds = (performance.now() - t0) / 1000;
    const after = await snapshot(stack);

    const s1 = summarize(serial);
    const sc = summarize(latencies);
    const cpu = Object.fromEntries(SERVICES.map((s) => [s, +(after[s].cpu - before[s].cpu).toFixed(2)]));
    console.log(`CPU seconds per service during the concurrency-${CONCURRENCY} run (${seconds.toFixed(1)} s; the machine has 2 cores):`);
    console.table([cpu]);
    const serialTimes = timeMeans(serialBefore, before);
    const loadedTimes = timeMeans(before, after);
    console.log('server-side mean times, concurrency 1 (one-document jobs):');
    console.table(serialTimes);
    console.log(`server-side mean times, concurrency ${CONCURRENCY}:`);
    console.table(loadedTimes);
    report(
      'classification',
      [
        {
          scenario: 'concurrency 1, 1 document per job',
          jobs: s1.n,
          'jobs/s': +(1000 / s1.mean).toFixed(1),
          'documents/s': +(1000 / s1.mean).toFixed(1),
          'p50 ms': +s1.p50.toFixed(1),
          'p95 ms': +s1.p95.toFixed(1),
        },
        {
          scenario: `concurrency ${CONCURRENCY}, ${DOCS_PER_JOB} documents per job`,
          jobs: sc.n,
          'jobs/s': +(JOBS / seconds).toFixed(1),
          'documents/s': +((JOBS * DOCS_PER_JOB) / seconds).toFixed(1),
          'p50 ms': +sc.p50.toFixed(1),
          'p95 ms': +sc.p95.toFixed(1),
        },
      ],
      {
        engine: 'local (no provider configured)',
        documents_uploaded: DOCUMENTS,
        processor: { EXTRACTION_PREFETCH: PROCESSOR_ENV.EXTRACTION_PREFETCH ?? '4 (default)', EXTRACTION_DOCUMENT_CONCURRENCY: PROCESSOR_ENV.EXTRACTION_DOCUMENT_CONCURRENCY ?? '2 (default)' },
        poll_ms: { serial: 5, loaded: 50 },
        cpu_seconds: cpu,
        server_means_ms: { serial: serialTimes, loaded: loadedTimes },
      },
    );
  } finally {
    await stack.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
