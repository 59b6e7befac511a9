// Event bus: files written into a watched folder of the local drive provider
// until each one's workflow execution has started (its job handed to the
// router: "execution queued"). Runs the built public API alone
// (dist/apps/public-api/main.js) over a database, RabbitMQ vhost and drive
// root of its own, with a loopback router that takes every job; no processor
// runs, so executions stay running. Two scenarios, each reported with events
// per second (first file written → last execution started), p50/p95 of file
// landed → execution started, of the same beyond the settle time (landed →
// started, less CLOUD_DRIVE_SETTLE_SECONDS: BENCH_SETTLE_SECONDS, default 1)
// and of recorded (the event log's received_at) → started, the public API's
// CPU milliseconds per event (from its /metrics; they hold on a busy machine
// where wall-clock figures do not) and SQL statements per event (counted in
// its process by bench/pg-statement-counter.cjs, every pg query):
//   - burst: BENCH_FILES files (default 1,000) written at once. Its events/s
//     is the throughput figure (target ≥ 200/s). Its latency is bounded below
//     by queueing, not by the event bus: the k-th file of the burst waits for
//     the k-1 before it, so the p95 beyond settle is at least 0.95 × files /
//     rate (4.75 s for 1,000 files even at 200/s), whatever the design.
//   - steady: files written one by one at BENCH_STEADY_RATE per second
//     (default 100, half the throughput target) for BENCH_STEADY_SECONDS
//     (default 10). The latency target (p95 ≤ 250 ms beyond the settle time)
//     is read against this one: it is what a file sees when files arrive
//     below capacity, the only load at which a latency bound can hold at all
//     (above capacity any queue grows without bound).
// BENCH_API_ROOT=<checkout> runs that checkout's built public API instead of
// this one's (the same bench over another build: main's, to compare).
// BENCH_CPU_PROFILE_DIR=<dir> writes the public API's .cpuprofile there on
// exit; BENCH_STATEMENTS_FILE=<path> keeps the statement counts (by text in
// <path>.by-text.json).
import { ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { createTestDatabase, createTestVhost } from '@docflow/testing';
import { report, serviceCpuSeconds, summarize } from './support';

const ROOT = path.resolve(__dirname, '..', '..');
const API_ROOT = process.env.BENCH_API_ROOT ? path.resolve(process.env.BENCH_API_ROOT) : ROOT;
const PORT = Number(process.env.BENCH_PORT ?? 22437);
const FILES = Number(process.env.BENCH_FILES ?? 1000);
const SETTLE_SECONDS = Number(process.env.BENCH_SETTLE_SECONDS ?? 1);
const STEADY_RATE = Number(process.env.BENCH_STEADY_RATE ?? 100);
const STEADY_SECONDS = Number(process.env.BENCH_STEADY_SECONDS ?? 10);
const WARMUP = 20;
const base = `http://127.0.0.1:${PORT}`;

async function waitFor(url: string, status: number, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`public API exited with ${child.exitCode}; see .tmp/bench-logs/public-api-event-bus.log`);
    const got = await fetch(url, { signal: AbortSignal.timeout(2000) }).then(
      (r) => r.status,
      () => 0,
    );
    if (got === status) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not answer ${status} within ${timeoutMs} ms`);
}

/** A router that takes every job (spec 4.16's answer, one by one or in a batch), so that executions start. */
async function loopbackRouter(): Promise<{ url: string; jobs: () => number; close(): Promise<void> }> {
  let jobs = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/api/v1/jobs') {
        jobs += 1;
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { job_id?: string };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ job_id: body.job_id, success: true, message: 'queued' }));
      } else if (req.method === 'POST' && req.url === '/api/v1/jobs/batch') {
        // The router's batch route (docs/decisions.md, "Router job submissions in batches"): each job's own answer.
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { jobs?: { job_id?: string }[] };
        const results = (body.jobs ?? []).map((job) => ({ job_id: job.job_id, status: 200, body: { job_id: job.job_id, success: true, message: 'queued' } }));
        jobs += results.length;
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ results }));
      } else res.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, jobs: () => jobs, close: () => new Promise((r) => server.close(() => r())) };
}

async function api<T>(token: string, method: string, route: string, body?: unknown): Promise<T> {
  const res = await fetch(`${base}/api${route}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${method} ${route} answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
  return (await res.json()) as T;
}

/**
 * A small text file, different for each one. Text, not PDF: a PDF's text
 * extraction (a worker thread per document, started after the run) costs
 * far more CPU than the event bus and is the documents' benchmark's subject.
 */
function textFile(i: number): Buffer {
  return Buffer.from(`Bench file ${i}: ${'the quick brown fox jumps over the lazy dog. '.repeat(5)}\n`, 'utf8');
}

interface Started {
  file_name: string;
  started_at: Date;
  received_at: Date;
}

async function startedRuns(pg: Client, prefix: string): Promise<Started[]> {
  const rows = await pg.query<Started>(
    `SELECT e.inputs->>'file_name' AS file_name, e.started_at, l.received_at
       FROM workflow_executions e JOIN event_logs l ON l.event_id = e.inputs->>'event_id'
      WHERE e.started_at IS NOT NULL AND e.inputs->>'file_name' LIKE $1`,
    [`${prefix}%`],
  );
  return rows.rows;
}

async function drop(inbox: string, prefix: string, n: number): Promise<Map<string, number>> {
  const landed = new Map<string, number>();
  await Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const name = `${prefix}${i}.txt`;
      await writeFile(path.join(inbox, name), textFile(i));
      landed.set(name, Date.now());
    }),
  );
  return landed;
}

/** Writes `n` files one by one, the i-th at t0 + i / rate seconds (a steady arrival). */
async function dripFeed(inbox: string, prefix: string, n: number, rate: number): Promise<Map<string, number>> {
  const landed = new Map<string, number>();
  const t0 = Date.now();
  const writes: Promise<void>[] = [];
  for (let i = 0; i < n; i += 1) {
    const due = t0 + (i * 1000) / rate;
    const wait = due - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const name = `${prefix}${i}.txt`;
    writes.push(writeFile(path.join(inbox, name), textFile(i)).then(() => void landed.set(name, Date.now())));
  }
  await Promise.all(writes);
  return landed;
}

async function waitForRuns(pg: Client, prefix: string, n: number, timeoutMs: number): Promise<Started[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    // Started runs are marked finished as they are seen (no processor runs them), so that a file emitted twice
    // under load (an empty file_created, then its file_modified: the settle rule read literally) does not hold
    // the last runs back at the owner's running limit; the duplicate is still counted, and fails the bench.
    await pg.query(`UPDATE workflow_executions SET status = 'completed', completed_at = now() WHERE status = 'running' AND inputs->>'file_name' LIKE $1`, [`${prefix}%`]);
    const runs = await startedRuns(pg, prefix);
    if (runs.length >= n) return runs;
    if (Date.now() > deadline) throw new Error(`${runs.length} of ${n} executions started within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The public API's SQL statements so far (pg-statement-counter.cjs writes them every 100 ms; read after it did). */
async function statementsSoFar(file: string): Promise<number> {
  await new Promise((r) => setTimeout(r, 300));
  return Number(await readFile(file, 'utf8').catch(() => '0'));
}

async function main(): Promise<void> {
  const [db, vhost] = await Promise.all([createTestDatabase('docflow_bench_events'), createTestVhost('docflow_bench_events')]);
  const router = await loopbackRouter();
  const workDir = await mkdtemp(path.join(tmpdir(), 'docflow-bench-events-'));
  const logDir = path.join(ROOT, '.tmp', 'bench-logs');
  mkdirSync(logDir, { recursive: true });
  const profileDir = process.env.BENCH_CPU_PROFILE_DIR ? path.resolve(process.env.BENCH_CPU_PROFILE_DIR) : undefined;
  if (profileDir) mkdirSync(profileDir, { recursive: true });
  const statementsFile = process.env.BENCH_STATEMENTS_FILE ?? path.join(workDir, 'pg-statements');
  const preload = [path.join(ROOT, 'bench', 'pg-statement-counter.cjs'), ...(profileDir ? [path.join(ROOT, 'bench', 'cpu-profiler.cjs')] : [])];
  const child = spawn(process.execPath, [path.join(API_ROOT, 'dist', 'apps', 'public-api', 'main.js')], {
    cwd: workDir,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/root',
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      PUBLIC_API_PORT: String(PORT),
      PUBLIC_BASE_URL: base,
      DATABASE_URL: db.url,
      AMQP_URL: vhost.url,
      ROUTER_URL: router.url,
      ROUTER_API_KEY: 'bench-router-key-0123456789abcdef0123456789',
      JWT_SECRET: 'bench-jwt-secret-0123456789abcdef0123456789',
      INTERNAL_SERVICE_JWT_SECRET: 'bench-internal-secret-0123456789abcdef012345',
      SERVICE_KEY: 'bench-service-key-0123456789abcdef0123456789',
      CREDENTIALS_MASTER_KEY: 'b'.repeat(64),
      SEED_DEMO_USERS: 'true',
      STORAGE_DIR: path.join(workDir, 'storage'),
      UPLOAD_TMP_DIR: path.join(workDir, 'uploads'),
      OUTBOX_DIR: path.join(workDir, 'outbox'),
      STORAGE_QUOTA_MB: String(1024 * 1024),
      MAX_RUNNING_EXECUTIONS_PER_USER: '1000',
      CLOUD_DRIVE_LOCAL_ROOT: path.join(workDir, 'drive'),
      CLOUD_DRIVE_SETTLE_SECONDS: String(SETTLE_SECONDS),
      NODE_OPTIONS: preload.map((p) => `--require ${p}`).join(' '),
      PG_STATEMENT_COUNT_FILE: statementsFile,
      ...(profileDir ? { CPU_PROF_DIR: profileDir } : {}),
    },
  });
  const log = createWriteStream(path.join(logDir, 'public-api-event-bus.log'), { flags: 'a' });
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  const pg = new Client({ connectionString: db.url });
  try {
    await waitFor(`${base}/api/openapi.json`, 200, child, 60_000);
    await pg.connect();
    const login = await fetch(`${base}/api/auth/local`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ identifier: 'alice', password: 'Alice#Pass123' }) });
    const token = ((await login.json()) as { jwt: string }).jwt;
    const me = await api<{ id: number }>(token, 'GET', '/users/me');
    const definition = {
      nodes: [
        { id: 'start', type: 'start', position: { x: 0, y: 0 }, data: { label: 'Start', task_type: 'custom_task', config: {} } },
        { id: 'end', type: 'end', position: { x: 200, y: 0 }, data: { label: 'End', task_type: 'custom_task', config: {} } },
      ],
      edges: [{ id: 'e1', source: 'start', target: 'end' }],
      input_schema: { type: 'object', properties: { file_name: { type: 'string' } }, required: ['file_name'] },
    };
    const activity = (await api<{ data: { id: number } }>(token, 'POST', '/activities', { data: { name: 'Bench intake', workflow_definition: definition } })).data.id;
    const source = (await api<{ data: { id: number } }>(token, 'POST', '/event-bus/sources', { source_type: 'cloud_drive', folder_id: 'inbox', folder_name: 'Inbox' })).data.id;
    await api(token, 'POST', '/event-subscriptions', { data: { event_source: source, activity, filter: { name: '*.txt' } } });
    const inbox = path.join(workDir, 'drive', String(me.id), 'inbox');
    await mkdir(inbox, { recursive: true });

    // Warm-up, then its runs are marked finished so that they do not count against the running limit.
    await drop(inbox, 'warm-', WARMUP);
    await waitForRuns(pg, 'warm-', WARMUP, 60_000);
    await pg.query(`UPDATE workflow_executions SET status = 'completed', completed_at = now() WHERE inputs->>'file_name' LIKE 'warm-%'`);

    const measure = async (scenario: string, prefix: string, n: number, write: () => Promise<Map<string, number>>) => {
      const statementsBefore = await statementsSoFar(statementsFile);
      const cpuBefore = await serviceCpuSeconds(base);
      const t0 = Date.now();
      const landed = await write();
      const runs = await waitForRuns(pg, prefix, n, 10 * 60_000);
      const cpuSeconds = (await serviceCpuSeconds(base)) - cpuBefore;
      const statements = (await statementsSoFar(statementsFile)) - statementsBefore;
      const seconds = (Math.max(...runs.map((r) => r.started_at.getTime())) - t0) / 1000;
      const fromLanding = runs.map((r) => r.started_at.getTime() - (landed.get(r.file_name) ?? t0));
      const total = summarize(fromLanding);
      const beyondSettle = summarize(fromLanding.map((ms) => ms - SETTLE_SECONDS * 1000));
      const fromRecorded = summarize(runs.map((r) => r.started_at.getTime() - r.received_at.getTime()));
      const duplicates = runs.length - new Set(runs.map((r) => r.file_name)).size;
      // Marked finished, so that they do not count against the owner's running executions in the next scenario.
      await pg.query(`UPDATE workflow_executions SET status = 'completed', completed_at = now() WHERE inputs->>'file_name' LIKE $1`, [`${prefix}%`]);
      return {
        duplicates,
        row: {
          scenario,
          n: runs.length,
          'events/s': +(n / seconds).toFixed(1),
          'landed→started p50/p95 ms': `${total.p50.toFixed(0)} / ${total.p95.toFixed(0)}`,
          'beyond settle p50 ms': +beyondSettle.p50.toFixed(0),
          'beyond settle p95 ms': +beyondSettle.p95.toFixed(0),
          'recorded→started p95 ms': +fromRecorded.p95.toFixed(0),
          'CPU ms/event': +((cpuSeconds * 1000) / n).toFixed(2),
          'SQL/event': +(statements / n).toFixed(1),
        },
      };
    };
    const steadyFiles = Math.round(STEADY_RATE * STEADY_SECONDS);
    const burst = await measure(`burst: ${FILES} files at once (settle ${SETTLE_SECONDS} s)`, 'file-', FILES, () => drop(inbox, 'file-', FILES));
    const steady = await measure(`steady: ${STEADY_RATE} files/s for ${STEADY_SECONDS} s (settle ${SETTLE_SECONDS} s)`, 'steady-', steadyFiles, () =>
      dripFeed(inbox, 'steady-', steadyFiles, STEADY_RATE),
    );
    const duplicates = burst.duplicates + steady.duplicates;
    report('event-bus', [burst.row, steady.row], {
      files: FILES,
      steady: { rate: STEADY_RATE, seconds: STEADY_SECONDS },
      settleSeconds: SETTLE_SECONDS,
      duplicates,
      routerJobs: router.jobs(),
      targets: { eventsPerSecond: 200, eventsPerSecondReadOn: 'burst', p95BeyondSettleMs: 250, p95ReadOn: 'steady' },
    });
    if (duplicates > 0) throw new Error(`${duplicates} files started more than one run`);
  } finally {
    await pg.end().catch(() => undefined);
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    await router.close();
    await Promise.all([db.drop(), vhost.drop(), rm(workDir, { recursive: true, force: true })]);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
