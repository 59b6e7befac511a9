// Pipeline: a 4-node workflow run end to end through the public API, the
// router, RabbitMQ, the workflow processor and the results path back into the
// execution record, with all six services local.
//
// Workflow (an activity, created through POST /activities):
//   start ─▶ route (decision: amount >= 100) ─true─▶  approve (end)
//                                            └false─▶ review  (end)
// Four nodes: start, one decision, and two `end` nodes as its branches (the
// active one completes, the other is skipped). No node does I/O, so what is
// measured is the platform's own path. Inputs alternate 250 / 20, so both
// branches run.
//
// Per execution: POST /workflow-executions (create), POST /{id}/execute (the
// start), then GET /{id}/status until `completed` (polling, or one long poll
// with ?wait=30 that the results consumer's commit wakes).
//   - concurrency 1 with ?wait=: start-to-completed latency seen by a client
//     that does not poll;
//   - concurrency 1: start-to-completed latency, twice: to the record's
//     completed_at (the moment the platform holds the execution as completed;
//     all processes share this machine's clock, ISO timestamps have 1 ms
//     resolution) and to the poll that saw it (every BENCH_POLL_SERIAL_MS,
//     default 2: each poll costs the public API about a millisecond of CPU,
//     so polling faster slows the execution it waits for);
//   - concurrency 30: executions completed per second (create included),
//     each loop waiting with ?wait= (BENCH_LOADED_POLL_MS=<ms> polls instead).
// The per-user limit of 10 running executions stays at its default: the 30
// loops belong to 3 users created with the public API's user:create CLI
// against the benchmark's own database, 10 loops each.
// CPU milliseconds per execution of each service, PostgreSQL and RabbitMQ are
// reported for each run.
//
// Environment: BENCH_EXECUTIONS (2000), BENCH_CONCURRENCY (30), BENCH_POLL_SERIAL_MS (2), BENCH_SERIAL
// (200), BENCH_USERS (3), BENCH_LOADED_POLL_MS (none: long poll), BENCH_CPU_PROFILE_DIR (every service writes a
// .cpuprofile there when it stops, through bench/cpu-profiler.cjs), BENCH_NODE_REQUIRE (comma-separated modules every
// service preloads besides, for diagnostics), BENCH_STAGE_TIMELINE (true: every service preloads
// bench/stage-timeline.cjs, and the median time of each stage of the concurrency-1 ?wait= run is printed at the end;
// off by default, and then nothing is loaded), BENCH_PG_WAITS (true: the stack's database backends' wait events are
// sampled during the concurrency run, bench/pg-waits.ts), BENCH_AMQP_COUNT (true: every service preloads
// bench/stage-timeline.cjs counting what it stamps, and the AMQP publishes, confirms, deliveries, acks, HTTP requests
// and statements per execution of the concurrency run are printed by service).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { SERVICES, Stack, type ServiceName } from '../e2e/support/stack';
import { definition, edge, endNode, objectSchema, startNode, taskNode, WorkflowApi, type TimelineView } from '../e2e/support/workflow-api';
import { pgWaitsEnabled, printWaits, sampleWaits, type WaitSamples } from './pg-waits';
import { databaseCounters, report, serverCpu, summarize } from './support';

const TOTAL = Number(process.env.BENCH_EXECUTIONS ?? 2000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 30);
const SERIAL = Number(process.env.BENCH_SERIAL ?? 200);
const USERS = Number(process.env.BENCH_USERS ?? 3);
/** How a loop learns of completion: a long poll (`wait`) or polling every N ms. */
type Polling = number | 'wait';
const POLL_LOADED: Polling = process.env.BENCH_LOADED_POLL_MS ? Number(process.env.BENCH_LOADED_POLL_MS) : 'wait';
const POLL_SERIAL_MS = Number(process.env.BENCH_POLL_SERIAL_MS ?? 2);
const ROOT = path.resolve(__dirname, '..', '..');

const WORKFLOW = definition(
  [startNode(), taskNode('route', 'decision', { operator: '>=', left_operand: '$.amount', right_operand: 100 }, 'Route by amount'), endNode('approve', 'Approve'), endNode('review', 'Review')],
  [edge('start', 'route'), edge('route', 'approve', 'true'), edge('route', 'review', 'false')],
  objectSchema({ amount: { type: 'number' } }),
);

interface Runner {
  api: WorkflowApi;
  activityId: number;
}

interface Sample {
  id: number;
  /** execute call → status seen `completed` by this client (includes up to one polling interval). */
  latencyMs: number;
  /** execute call → the record's completed_at: when the platform held the execution as completed. */
  recordLatencyMs: number;
  /** The execute call alone. */
  executeMs: number;
  /** Wall clock when the client saw `completed`. */
  seenAt: number;
  runner: Runner;
  /** What the client did, on the machine's monotonic clock (the stage timeline's windows). */
  client: [number, string][];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Accounts of their own, through the same CLI as `npm run user:create`, against the stack's database. */
function createUser(stack: Stack, n: number): { email: string; password: string } {
  const email = `bench${n}@docflow.test`;
  const password = `Bench#Pass${n}23456`;
  const cli = path.join(ROOT, 'dist', 'apps', 'public-api', 'cli', 'user-create.js');
  const r = spawnSync(process.execPath, [cli, '--email', email, '--username', `bench${n}`, '--password', password], { env: stack.env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`user:create bench${n} failed: ${r.stderr}`);
  return { email, password };
}

async function runner(stack: Stack, n: number): Promise<Runner> {
  const { email, password } = createUser(stack, n);
  const api = await WorkflowApi.login(stack.api, email, password);
  check((await api.validate(WORKFLOW)).valid, 'the benchmark workflow validates');
  const activityId = await api.createActivity({ name: 'pipeline bench', workflow_definition: WORKFLOW, status: 'active' });
  return { api, activityId };
}

function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(`unexpected: ${what}`);
}

/** The machine's monotonic clock in ms, as bench/stage-timeline.cjs stamps the services' stages. */
const mono = () => Number(process.hrtime.bigint()) / 1e6;

async function runOne(r: Runner, i: number, pollMs: Polling): Promise<Sample> {
  const client: [number, string][] = [[mono(), 'create sent']];
  const id = await r.api.createExecution(r.activityId, { amount: i % 2 === 0 ? 250 : 20 });
  client.push([mono(), 'create answered']);
  client.push([mono(), 'execute sent']);
  const t0 = performance.now();
  await r.api.execute(id);
  const executeMs = performance.now() - t0;
  client.push([mono(), 'execute answered']);
  for (;;) {
    client.push([mono(), 'status sent']);
    const s = await r.api.status(id, pollMs === 'wait' ? 30 : undefined);
    if (s.status === 'completed') {
      const latencyMs = performance.now() - t0;
      client.push([mono(), 'status answered completed']);
      const recordLatencyMs = Date.parse(s.completed_at ?? '') - (performance.timeOrigin + t0);
      return { id, latencyMs, recordLatencyMs, executeMs, seenAt: Date.now(), runner: r, client };
    }
    if (s.status === 'failed' || s.status === 'cancelled') throw new Error(`execution ${id} ${s.status}: ${s.error}`);
    if (pollMs !== 'wait') await sleep(pollMs);
  }
}

/** `total` executions from `loops` loops; loop k always acts as runners[k % runners.length]. */
async function runLoops(total: number, loops: number, runners: Runner[], pollMs: Polling): Promise<Sample[]> {
  const samples: Sample[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: loops }, async (_, k) => {
      const r = runners[k % runners.length]!;
      while (next < total) {
        const i = next++;
        samples.push(await runOne(r, i, pollMs));
      }
    }),
  );
  return samples;
}

interface ServiceSnapshot {
  /** CPU seconds (user + system) the process has used. */
  cpu: number;
  /** Per `METHOD route`: [sum of seconds, count] of http_request_duration_seconds. */
  routes: Map<string, [number, number]>;
}

/** CPU and server-side request times of every service, from its /metrics. */
/** The counts every service's bench/stage-timeline.cjs wrote (AMQP_COUNT_DIR), summed by service; read after their next write. */
async function readCounts(dir: string): Promise<Map<string, Map<string, number>>> {
  await new Promise((r) => setTimeout(r, 300));
  const out = new Map<string, Map<string, number>>();
  for (const file of readdirSync(dir)) {
    const service = file.replace(/-\d+\.json$/, '');
    let counts: Record<string, number>;
    try {
      counts = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as Record<string, number>;
    } catch {
      continue; // being written: the next reading has it
    }
    const into = out.get(service) ?? new Map<string, number>();
    for (const [key, n] of Object.entries(counts)) into.set(key, (into.get(key) ?? 0) + n);
    out.set(service, into);
  }
  return out;
}

/** One row per service and counter that moved between two readings, per execution. */
function countsPerExecution(before: Map<string, Map<string, number>>, after: Map<string, Map<string, number>>, executions: number): { service: string; operation: string; 'per execution': number }[] {
  const rows: { service: string; operation: string; 'per execution': number }[] = [];
  for (const [service, counts] of after) {
    for (const [operation, n] of counts) {
      const delta = n - (before.get(service)?.get(operation) ?? 0);
      if (delta > 0) rows.push({ service, operation, 'per execution': +(delta / executions).toFixed(3) });
    }
  }
  return rows.sort((a, b) => a.service.localeCompare(b.service) || a.operation.localeCompare(b.operation));
}

async function snapshot(stack: Stack): Promise<Record<ServiceName, ServiceSnapshot>> {
  const out = {} as Record<ServiceName, ServiceSnapshot>;
  for (const s of SERVICES) {
    const text = await (await fetch(`${stack.url(s)}/metrics`)).text();
    const value = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
    const routes = new Map<string, [number, number]>();
    for (const m of text.matchAll(/^http_request_duration_seconds_(sum|count)\{([^}]*)\} (\S+)$/gm)) {
      const labels = Object.fromEntries([...m[2]!.matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1]!, l[2]!]));
      const key = `${labels['method']} ${labels['route']}`;
      const entry = routes.get(key) ?? [0, 0];
      entry[m[1] === 'sum' ? 0 : 1] += Number(m[3]);
      routes.set(key, entry);
    }
    out[s] = { cpu: value('process_cpu_user_seconds_total') + value('process_cpu_system_seconds_total'), routes };
  }
  return out;
}

/** CPU seconds per service between two snapshots. */
function cpuBetween(a: Record<ServiceName, ServiceSnapshot>, b: Record<ServiceName, ServiceSnapshot>): Record<string, number> {
  return Object.fromEntries(SERVICES.map((s) => [s, +(b[s].cpu - a[s].cpu).toFixed(2)]));
}

/** Mean server-side time (ms) of the busy routes between two snapshots. */
function routeMeans(a: Record<ServiceName, ServiceSnapshot>, b: Record<ServiceName, ServiceSnapshot>): Record<string, string | number>[] {
  const rows: Record<string, string | number>[] = [];
  for (const s of SERVICES) {
    for (const [route, [sum, count]] of b[s].routes) {
      const [sum0, count0] = a[s].routes.get(route) ?? [0, 0];
      if (count - count0 < 50) continue;
      rows.push({ service: s, route, requests: count - count0, 'mean ms': +(((sum - sum0) / (count - count0)) * 1000).toFixed(2) });
    }
  }
  return rows;
}

const ms = (iso: string | null) => (iso ? Date.parse(iso) : NaN);
const median = (xs: number[]) => summarize(xs.filter((x) => Number.isFinite(x))).p50;

/**
 * Where the time of a serial execution goes, from the records' own clocks
 * (all services share this machine's clock; ISO timestamps have 1 ms resolution).
 */
async function hopBreakdown(samples: Sample[]): Promise<Record<string, number>> {
  const hops: Record<string, number[]> = { execute_call: [], api_to_processor: [], processor_run: [], results_to_api: [], poll_lag: [] };
  for (const s of samples) {
    const status = await s.runner.api.status(s.id);
    const tl: TimelineView = await s.runner.api.timeline(s.id);
    const started = tl.timeline.map((t) => ms(t.started_at)).filter(Number.isFinite);
    const completed = tl.timeline.map((t) => ms(t.completed_at)).filter(Number.isFinite);
    hops['execute_call']!.push(s.executeMs);
    hops['api_to_processor']!.push(Math.min(...started) - ms(status.started_at));
    hops['processor_run']!.push(Math.max(...completed) - Math.min(...started));
    hops['results_to_api']!.push(ms(status.completed_at) - Math.max(...completed));
    hops['poll_lag']!.push(s.seenAt - ms(status.completed_at));
  }
  return Object.fromEntries(Object.entries(hops).map(([k, v]) => [k, +median(v).toFixed(1)]));
}

/**
 * The median moment of every stage of a serial execution, from what bench/stage-timeline.cjs stamped in each
 * service (and this client's own stamps), relative to the client sending its execute call. Concurrency 1: each
 * execution owns the window from its create call to its last answer, so whatever a service did inside it was
 * done for that execution. A stage is a service and what it did (the n-th time in the window when repeated);
 * stages seen in fewer than 80 % of windows are left out. `p50 step ms` is the median, over the windows that have
 * both, of the time from the stage of the row above to this one (not the difference of the two medians: under load
 * the order of parallel stages varies from one execution to the next).
 */
function stageTimeline(
  dir: string,
  samples: Sample[],
): { wakeMs: number; rows: { service: string; stage: string; 'p50 at ms': number; 'p50 step ms': number; seen: string }[]; counts: Record<string, string | number>[] } {
  const stamps: [number, string][] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
    const { service, events } = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as { service: string; events: [number, string][] };
    for (const [t, label] of events) stamps.push([t, `${service}\u0000${label}`]);
  }
  stamps.sort((a, b) => a[0] - b[0]);
  /** Per window: each stage's time from the execute call. */
  const windows: Map<string, number>[] = [];
  for (const s of samples) {
    const from = s.client[0]![0];
    const to = s.client[s.client.length - 1]![0];
    const t0 = s.client.find(([, l]) => l === 'execute sent')![0];
    const inside = s.client.map(([t, l]): [number, string] => [t, `bench client\u0000${l}`]);
    let lo = 0;
    let hi = stamps.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (stamps[mid]![0] < from) lo = mid + 1;
      else hi = mid;
    }
    for (let k = lo; k < stamps.length && stamps[k]![0] <= to; k++) inside.push(stamps[k]!);
    inside.sort((a, b) => a[0] - b[0]);
    const count = new Map<string, number>();
    const stages = new Map<string, number>();
    for (const [t, key] of inside) {
      const n = (count.get(key) ?? 0) + 1;
      count.set(key, n);
      stages.set(n === 1 ? key : `${key} #${n}`, t - t0);
    }
    windows.push(stages);
  }
  const keys = new Set(windows.flatMap((w) => [...w.keys()]));
  const rows = [...keys]
    .map((key) => {
      const xs = windows.flatMap((w) => (w.has(key) ? [w.get(key)!] : []));
      return { key, at: median(xs), n: xs.length };
    })
    .filter((r) => r.n >= 0.8 * samples.length)
    .sort((a, b) => a.at - b.at);
  // SQL statements, publishes and deliveries, and HTTP calls each service made per execution (median over the windows).
  const kinds: [string, RegExp][] = [
    ['SQL statements', /^pg (?!done |notify)/],
    ['NOTIFYs received', /^pg notify/],
    ['publishes', /^amqp publish /],
    ['deliveries', /^amqp deliver /],
    ['HTTP calls made', /^http call /],
  ];
  const services = [...new Set([...keys].map((k) => k.split('\u0000')[0]!))].filter((s) => s !== 'bench client').sort();
  const counts = services.map((service) => ({
    service,
    ...Object.fromEntries(kinds.map(([name, re]) => [name, median(windows.map((w) => [...w.keys()].filter((k) => k.startsWith(`${service}\u0000`) && re.test(k.split('\u0000')[1]!)).length))])),
  }));
  // The wake-up: from the last NOTIFY the public API received (the terminal change's) to the client holding the answer.
  const wake = windows.flatMap((w) => {
    const notifies = [...w].filter(([k]) => k.startsWith('public-api\u0000pg notify')).map(([, t]) => t);
    const answered = w.get('bench client\u0000status answered completed');
    return notifies.length && answered !== undefined ? [answered - Math.max(...notifies)] : [];
  });
  return {
    wakeMs: +median(wake).toFixed(2),
    rows: rows.map((r, i) => {
      const [service, stage] = r.key.split('\u0000') as [string, string];
      const before = rows[i - 1]?.key;
      const steps = before === undefined ? [0] : windows.flatMap((w) => (w.has(r.key) && w.has(before) ? [w.get(r.key)! - w.get(before)!] : []));
      return { service, stage, 'p50 at ms': +r.at.toFixed(2), 'p50 step ms': +median(steps).toFixed(2), seen: `${r.n}/${samples.length}` };
    }),
    counts,
  };
}

async function main(): Promise<void> {
  const profileDir = process.env.BENCH_CPU_PROFILE_DIR ? path.resolve(process.env.BENCH_CPU_PROFILE_DIR) : undefined;
  if (profileDir) mkdirSync(profileDir, { recursive: true });
  // BENCH_NODE_REQUIRE: more modules every service preloads (a diagnostic, e.g. a statement counter).
  // BENCH_STAGE_TIMELINE: every service stamps its stages (bench/stage-timeline.cjs) into a directory of this run's own.
  const timelineDir = process.env.BENCH_STAGE_TIMELINE === 'true' ? mkdtempSync(path.join(tmpdir(), 'docflow-stages-')) : undefined;
  const countDir = process.env.BENCH_AMQP_COUNT === 'true' ? mkdtempSync(path.join(tmpdir(), 'docflow-amqp-count-')) : undefined;
  const preloads = [
    ...(profileDir ? [path.join(ROOT, 'bench', 'cpu-profiler.cjs')] : []),
    ...(timelineDir || countDir ? [path.join(ROOT, 'bench', 'stage-timeline.cjs')] : []),
    ...(process.env.BENCH_NODE_REQUIRE ?? '').split(',').filter(Boolean),
  ];
  const profile: Record<string, string> = {
    ...(preloads.length ? { NODE_OPTIONS: preloads.map((p) => `--require ${p}`).join(' ') } : {}),
    ...(profileDir ? { CPU_PROF_DIR: profileDir } : {}),
    ...(timelineDir ? { STAGE_TIMELINE_DIR: timelineDir } : {}),
    ...(countDir ? { AMQP_COUNT_DIR: countDir } : {}),
  };
  let waitedSamples: Sample[] = [];
  const stack = await Stack.start({ portOffset: 600, env: { LOG_LEVEL: 'warn', ...profile } });
  try {
    const runners = await Promise.all(Array.from({ length: USERS }, (_, n) => runner(stack, n + 1)));
    await runLoops(200, 8, runners, 5); // warm-up: JIT, connection pools, prepared plans

    const loadBefore = loadavg()[0]!;
    const serialBefore = await snapshot(stack);
    const client0 = process.cpuUsage();
    const servers0 = serverCpu();
    const s0 = performance.now();
    const serial = await runLoops(SERIAL, 1, runners, POLL_SERIAL_MS);
    const serialSeconds = (performance.now() - s0) / 1000;
    const serialAfter = await snapshot(stack);
    const client1 = process.cpuUsage();
    const servers1 = serverCpu();

    const w0 = performance.now();
    const waited = await runLoops(SERIAL, 1, runners, 'wait');
    waitedSamples = waited;
    const waitedSeconds = (performance.now() - w0) / 1000;
    const waitedAfter = await snapshot(stack);
    const servers1w = serverCpu();

    const counts0 = countDir ? await readCounts(countDir) : undefined;
    const db0 = await databaseCounters(stack.db.url);
    const sampler = pgWaitsEnabled ? await sampleWaits(stack.db.url) : undefined;
    const t0 = performance.now();
    const loaded = await runLoops(TOTAL, CONCURRENCY, runners, POLL_LOADED);
    const seconds = (performance.now() - t0) / 1000;
    const waits: WaitSamples | undefined = await sampler?.stop();
    // Stats reach pg_stat_database up to a second after the backends' last commit.
    await new Promise((r) => setTimeout(r, 1200));
    const db1 = await databaseCounters(stack.db.url);
    const counts1 = countDir ? await readCounts(countDir) : undefined;
    const loadedAfter = await snapshot(stack);
    const client2 = process.cpuUsage();
    const servers2 = serverCpu();
    const serversBetween = (a: ReturnType<typeof serverCpu>, b: ReturnType<typeof serverCpu>) => ({ postgres: +(b.postgres - a.postgres).toFixed(2), rabbitmq: +(b.rabbitmq - a.rabbitmq).toFixed(2) });
    const clientCpu = (a: NodeJS.CpuUsage, b: NodeJS.CpuUsage) => +((b.user - a.user + b.system - a.system) / 1e6).toFixed(2);

    const s1 = summarize(serial.map((s) => s.latencyMs));
    const s1Record = summarize(serial.map((s) => s.recordLatencyMs));
    const sw = summarize(waited.map((s) => s.latencyMs));
    const sc = summarize(loaded.map((s) => s.latencyMs));
    const rate = TOTAL / seconds;
    const hops = [
      { run: 'concurrency 1', ...(await hopBreakdown(serial)) },
      { run: `concurrency ${CONCURRENCY}`, ...(await hopBreakdown(loaded.filter((_, i) => i % Math.max(1, Math.floor(loaded.length / 200)) === 0))) },
    ];
    const cpu = [
      { run: `concurrency 1 (${serialSeconds.toFixed(1)} s)`, ...cpuBetween(serialBefore, serialAfter), 'bench client': clientCpu(client0, client1), ...serversBetween(servers0, servers1) },
      { run: `concurrency ${CONCURRENCY} (${seconds.toFixed(1)} s)`, ...cpuBetween(waitedAfter, loadedAfter), 'bench client': clientCpu(client1, client2), ...serversBetween(servers1w, servers2) },
    ];
    // The same, in milliseconds per execution (the targets speak of these).
    const perExecution = (row: Record<string, string | number>, n: number) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v === 'number' ? +((v * 1000) / n).toFixed(2) : v]));
    const cpuPerExecution = [perExecution(cpu[0]!, SERIAL), perExecution(cpu[1]!, TOTAL)].map((row) => {
      const services = SERVICES.map((s) => Number(row[s] ?? 0)).reduce((a, b) => a + b, 0);
      const total = services + Number(row['postgres'] ?? 0) + Number(row['rabbitmq'] ?? 0);
      return { ...row, 'total (services + PostgreSQL + RabbitMQ)': +total.toFixed(2) };
    });
    const loadedCpuMs = Number(cpuPerExecution[1]!['total (services + PostgreSQL + RabbitMQ)']);
    const routes = routeMeans(serialAfter, loadedAfter);

    console.log('\nmedian time per hop (ms), from the execution and step records:');
    console.table(hops);
    const load = { before: +loadBefore.toFixed(2), after: +loadavg()[0]!.toFixed(2) };
    console.log(`CPU seconds used per process, PostgreSQL and RabbitMQ included (the machine has 2 cores; 1-minute load average ${load.before} before, ${load.after} after):`);
    console.table(cpu);
    console.log('CPU milliseconds per execution (target: total ≤ 6 ms):');
    console.table(cpuPerExecution);
    const stackDb = { commits: +((db1.commits - db0.commits) / TOTAL).toFixed(2), backendCpuMs: +(((db1.backendCpu - db0.backendCpu) * 1000) / TOTAL).toFixed(2) };
    console.log(
      `the stack's own database during the concurrency-${CONCURRENCY} run, per execution: ${stackDb.commits} committed transactions (reads included, less the benchmark's two readings), ${stackDb.backendCpuMs} ms of CPU of its backends (the PostgreSQL column above counts every database on the machine)`,
    );
    if (waits) printWaits(`the concurrency-${CONCURRENCY} run`, waits);
    if (counts0 && counts1) {
      console.log(`AMQP operations and HTTP requests per execution of the concurrency-${CONCURRENCY} run, by service (BENCH_AMQP_COUNT):`);
      console.table(countsPerExecution(counts0, counts1, TOTAL));
    }
    console.log(`server-side mean time per route during the concurrency-${CONCURRENCY} run:`);
    console.table(routes);
    report(
      'pipeline',
      [
        {
          scenario: 'concurrency 1, start → completed in the record',
          executions: s1Record.n,
          'executions/s': +(SERIAL / serialSeconds).toFixed(1),
          'p50 ms': +s1Record.p50.toFixed(2),
          'p95 ms': +s1Record.p95.toFixed(2),
          'p99 ms': +s1Record.p99.toFixed(2),
          target: 'p50 ≤ 20 ms',
        },
        {
          scenario: `concurrency 1, start → completed seen by the client (polling every ${POLL_SERIAL_MS} ms)`,
          executions: s1.n,
          'executions/s': +(SERIAL / serialSeconds).toFixed(1),
          'p50 ms': +s1.p50.toFixed(2),
          'p95 ms': +s1.p95.toFixed(2),
          'p99 ms': +s1.p99.toFixed(2),
          target: 'p50 ≤ 20 ms',
        },
        {
          scenario: 'concurrency 1, start → completed seen by the client (GET .../status?wait=30)',
          executions: sw.n,
          'executions/s': +(SERIAL / waitedSeconds).toFixed(1),
          'p50 ms': +sw.p50.toFixed(2),
          'p95 ms': +sw.p95.toFixed(2),
          'p99 ms': +sw.p99.toFixed(2),
          target: 'p50 ≤ 10 ms',
        },
        {
          scenario: `concurrency ${CONCURRENCY} over ${USERS} users (${POLL_LOADED === 'wait' ? '?wait=' : `polling every ${POLL_LOADED} ms`})`,
          executions: sc.n,
          'executions/s': +rate.toFixed(1),
          'p50 ms': +sc.p50.toFixed(2),
          'p95 ms': +sc.p95.toFixed(2),
          'p99 ms': +sc.p99.toFixed(2),
          target: '≥ 300 executions/s',
        },
      ],
      {
        workflow: 'start → decision (amount >= 100) → approve | review (two end nodes); 4 nodes',
        users: USERS,
        poll_ms: { serial: POLL_SERIAL_MS, loaded: POLL_LOADED },
        targets_met: { throughput: rate >= 300, p50_wait: sw.p50 <= 10, cpu_per_execution: loadedCpuMs <= 6 },
        cpu_ms_per_execution: cpuPerExecution,
        hop_medians_ms: hops,
        cpu_seconds: cpu,
        load_average_1m: load,
        route_means_ms: routes,
        stack_database_per_execution: stackDb,
        ...(waits ? { pg_waits: waits } : {}),
      },
    );
  } finally {
    await stack.stop();
  }
  if (timelineDir) {
    // The services wrote their stamps when they exited.
    console.log(`\nstages of the concurrency-1 ?wait= run, p50 in ms from the client sending execute (BENCH_STAGE_TIMELINE; ${waitedSamples.length} executions):`);
    const stages = stageTimeline(timelineDir, waitedSamples);
    console.table(stages.rows);
    console.log('per execution of that run, median count by service (load-insensitive):');
    console.table(stages.counts);
    console.log(`wake-up, the public API's last NOTIFY of an execution → the client holding its completed status: p50 ${stages.wakeMs} ms`);
    rmSync(timelineDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
