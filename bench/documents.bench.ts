// Documents: upload throughput (100 KB text files at concurrency 16) and list
// latency of GET /documents with a $contains title filter at 100,000 documents.
// Runs the built public API alone (dist/apps/public-api/main.js) as a process
// of its own, over a database, RabbitMQ vhost and STORAGE_DIR of its own, and
// drives it over HTTP: the other five services play no part in these paths.
// Besides uploads/s it reports the public API's CPU milliseconds per upload
// (process_cpu_* from its /metrics around the timed uploads), which holds on a
// busy machine where wall-clock throughput does not. BENCH_CPU_PROFILE_DIR=<dir>
// runs the service under bench/cpu-profiler.cjs (a .cpuprofile there on exit);
// BENCH_PUBLIC_API_MAIN=<file> runs another build of it (A/B comparisons).
// BENCH_PUBLIC_API_WORKERS=<n> runs it as n processes (PUBLIC_API_WORKERS).
import { ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createWriteStream, mkdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { createTestDatabase, createTestVhost, TEST_SECRETS } from '@docflow/testing';
import { httpRequest } from '../e2e/support/lean-http';
import { report, runConcurrent, serverCpu, serviceCpuSeconds, summarize } from './support';

const ROOT = path.resolve(__dirname, '..', '..');
const PORT = Number(process.env.BENCH_PORT ?? 22337);
const UPLOADS = Number(process.env.BENCH_UPLOADS ?? 2000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const FILE_BYTES = 100 * 1024;
const LIST_ROWS = Number(process.env.BENCH_LIST_ROWS ?? 100_000);
const LIST_REQUESTS = Number(process.env.BENCH_LIST_REQUESTS ?? 400);
/** PUBLIC_API_WORKERS of the API under test (its /metrics then sums CPU over the workers). */
const WORKERS = Number(process.env.BENCH_PUBLIC_API_WORKERS ?? 1);

const base = `http://127.0.0.1:${PORT}`;

async function waitFor(url: string, status: number, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`public API exited with ${child.exitCode}; see .tmp/bench-logs/public-api.log`);
    const got = await fetch(url, { signal: AbortSignal.timeout(2000) }).then(
      (r) => r.status,
      () => 0,
    );
    if (got === status) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not answer ${status} within ${timeoutMs} ms`);
}

async function login(identifier: string, password: string): Promise<string> {
  const res = await fetch(`${base}/api/auth/local`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ identifier, password }) });
  if (res.status !== 200) throw new Error(`login answered ${res.status}`);
  return ((await res.json()) as { jwt: string }).jwt;
}

/** A 100 KB text file, different for each upload (so nothing is cached along the way). */
function textFile(i: number): Buffer {
  const line = `Line of bench document ${i}: the quick brown fox jumps over the lazy dog.\n`;
  return Buffer.from(line.repeat(Math.ceil(FILE_BYTES / line.length)).slice(0, FILE_BYTES));
}

/**
 * The multipart/form-data body of an upload (a title and the file), built as
 * one buffer: fetch with FormData cost the client about as much CPU per
 * upload as the API spent, on the same two cores.
 */
function multipartBody(i: number): { body: Buffer; contentType: string } {
  const boundary = `----docflow-bench-${i}-${Date.now()}`;
  const head =
    `--${boundary}\r\nContent-Disposition: form-data; name="title"\r\n\r\nBench upload ${i}\r\n` +
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="bench-${i}.txt"\r\nContent-Type: text/plain\r\n\r\n`;
  const body = Buffer.concat([Buffer.from(head), textFile(i), Buffer.from(`\r\n--${boundary}--\r\n`)]);
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}

async function uploadOne(token: string, i: number): Promise<number> {
  const { body, contentType } = multipartBody(i);
  const started = performance.now();
  const res = await httpRequest(`${base}/api/documents/upload`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': contentType }, body });
  if (res.status !== 201) throw new Error(`upload ${i} answered ${res.status}: ${res.text.slice(0, 300)}`);
  return performance.now() - started;
}

async function timedGet(token: string, url: string): Promise<number> {
  const started = performance.now();
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
  return performance.now() - started;
}

async function main(): Promise<void> {
  const [db, vhost] = await Promise.all([createTestDatabase('docflow_bench_docs'), createTestVhost('docflow_bench_docs')]);
  const workDir = await mkdtemp(path.join(tmpdir(), 'docflow-bench-docs-'));
  const logDir = path.join(ROOT, '.tmp', 'bench-logs');
  mkdirSync(logDir, { recursive: true });
  const profileDir = process.env.BENCH_CPU_PROFILE_DIR ? path.resolve(process.env.BENCH_CPU_PROFILE_DIR) : undefined;
  if (profileDir) mkdirSync(profileDir, { recursive: true });
  const main = process.env.BENCH_PUBLIC_API_MAIN ? path.resolve(process.env.BENCH_PUBLIC_API_MAIN) : path.join(ROOT, 'dist', 'apps', 'public-api', 'main.js');
  const child = spawn(process.execPath, [main], {
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
      ...TEST_SECRETS,
      SEED_DEMO_USERS: 'true',
      STORAGE_DIR: path.join(workDir, 'storage'),
      UPLOAD_TMP_DIR: path.join(workDir, 'uploads'),
      OUTBOX_DIR: path.join(workDir, 'outbox'),
      STORAGE_QUOTA_MB: String(1024 * 1024),
      PUBLIC_API_WORKERS: String(WORKERS),
      ...(profileDir ? { NODE_OPTIONS: `--require ${path.join(ROOT, 'bench', 'cpu-profiler.cjs')}`, CPU_PROF_DIR: profileDir } : {}),
    },
  });
  const log = createWriteStream(path.join(logDir, 'public-api.log'), { flags: 'a' });
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  const pg = new Client({ connectionString: db.url });
  try {
    await waitFor(`${base}/api/openapi.json`, 200, child, 60_000);
    await pg.connect();
    const token = await login('alice', 'Alice#Pass123');
    const rows: Record<string, string | number>[] = [];

    // Uploads: warm up, then UPLOADS at CONCURRENCY.
    await runConcurrent(100, CONCURRENCY, async (i) => void (await uploadOne(token, -1 - i)));
    const latencies: number[] = [];
    const cpuBefore = await serviceCpuSeconds(base);
    const client0 = process.cpuUsage();
    const servers0 = serverCpu();
    const t0 = performance.now();
    await runConcurrent(UPLOADS, CONCURRENCY, async (i) => void latencies.push(await uploadOne(token, i)));
    const seconds = (performance.now() - t0) / 1000;
    const client = process.cpuUsage(client0);
    const servers1 = serverCpu();
    const postgresMsPerUpload = ((servers1.postgres - servers0.postgres) * 1000) / UPLOADS;
    const cpuMsPerUpload = (((await serviceCpuSeconds(base)) - cpuBefore) * 1000) / UPLOADS;
    const clientMsPerUpload = (client.user + client.system) / 1000 / UPLOADS;
    const u = summarize(latencies);
    rows.push({
      scenario: `upload 100 KB text, concurrency ${CONCURRENCY}`,
      n: u.n,
      'per s': +(UPLOADS / seconds).toFixed(1),
      'MB/s': +((UPLOADS * FILE_BYTES) / (1024 * 1024) / seconds).toFixed(1),
      'p50 ms': +u.p50.toFixed(1),
      'p95 ms': +u.p95.toFixed(1),
      'CPU ms/upload': +cpuMsPerUpload.toFixed(2),
      'client CPU ms/upload': +clientMsPerUpload.toFixed(2),
      'PostgreSQL CPU ms/upload': +postgresMsPerUpload.toFixed(2),
    });

    // Background text extraction of those uploads: how long until every one is done.
    const drainDeadline = Date.now() + 10 * 60_000;
    for (;;) {
      const left = await pg.query<{ n: number }>("SELECT count(*)::int AS n FROM documents WHERE text_status IN ('pending', 'processing')");
      if ((left.rows[0]?.n ?? 0) === 0) break;
      if (Date.now() > drainDeadline) throw new Error('text extraction did not drain within 10 minutes');
      await new Promise((r) => setTimeout(r, 50));
    }
    const drained = (performance.now() - t0) / 1000;
    rows.push({
      scenario: 'upload + background text extraction drained',
      n: UPLOADS,
      'per s': +(UPLOADS / drained).toFixed(1),
      'MB/s': +((UPLOADS * FILE_BYTES) / (1024 * 1024) / drained).toFixed(1),
      'p50 ms': '',
      'p95 ms': '',
      'CPU ms/upload': '',
    });

    // 100,000 documents for alice, seeded in one statement.
    const alice = await pg.query<{ id: number }>("SELECT id FROM users WHERE username = 'alice'");
    const aliceId = alice.rows[0]?.id;
    const existing = (await pg.query<{ n: number }>('SELECT count(*)::int AS n FROM documents WHERE owner_id = $1', [aliceId])).rows[0]?.n ?? 0;
    await pg.query(
      `INSERT INTO documents (title, owner_id, storage_key, original_filename, mime_type, file_size, storage_bytes, sha256, text_status, created_at, updated_at)
       SELECT (ARRAY['Invoice','Contract','Report','Memo','Receipt','Policy','Agreement','Statement'])[1 + i % 8] || ' ' || (2000 + i % 25) || ' ' || substr(md5(i::text), 1, 10),
              $1, '2025/01/' || md5(i::text) || '.pdf', 'seed-' || i || '.pdf', 'application/pdf', 1000, 1000, md5(i::text) || md5(i::text),
              'completed', now() - make_interval(secs => i), now() - make_interval(secs => i)
       FROM generate_series(1, $2::int) AS i`,
      [aliceId, Math.max(0, LIST_ROWS - existing)],
    );
    // The steady state autovacuum reaches: statistics and the visibility map (index-only counts).
    await pg.query('VACUUM ANALYZE documents');
    const total = (await pg.query<{ n: number }>('SELECT count(*)::int AS n FROM documents WHERE owner_id = $1', [aliceId])).rows[0]?.n ?? 0;

    const terms: [string, (i: number) => string][] = [
      ['selective ($contains 6 hex chars, ~1 match)', (i) => `filters[title][$contains]=${md5Prefix(i)}`],
      ['word ($contains "Contract 2007", ~500 matches)', () => 'filters[title][$contains]=Contract%202007'],
      ['broad ($contains "Report", ~12,500 matches)', () => 'filters[title][$contains]=Report'],
      ['no filter', () => ''],
    ];
    for (const [name, query] of terms) {
      await runConcurrent(20, 1, async (i) => void (await timedGet(token, `${base}/api/documents?${query(i)}`)));
      const lat: number[] = [];
      await runConcurrent(LIST_REQUESTS, 1, async (i) => void lat.push(await timedGet(token, `${base}/api/documents?${query(i + 1000)}`)));
      const s = summarize(lat);
      rows.push({ scenario: `list ${total} docs, ${name}`, n: s.n, 'per s': +(1000 / s.mean).toFixed(1), 'MB/s': '', 'p50 ms': +s.p50.toFixed(2), 'p95 ms': +s.p95.toFixed(2), 'CPU ms/upload': '' });
    }

    report('documents', rows, { publicApiWorkers: WORKERS, uploads: UPLOADS, concurrency: CONCURRENCY, fileBytes: FILE_BYTES, listRows: total, targets: { uploadsPerSecond: 200, listP95Ms: 20 } });
  } finally {
    await pg.end().catch(() => undefined);
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    await Promise.all([db.drop(), vhost.drop(), rm(workDir, { recursive: true, force: true })]);
  }
}

/** The first 6 hex characters of md5(i), as the seeded titles carry (computed here to pick existing titles). */
function md5Prefix(i: number): string {
  return createHash('md5')
    .update(String(1 + ((i * 7919) % LIST_ROWS)))
    .digest('hex')
    .slice(0, 6);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
