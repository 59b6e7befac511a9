// LLM service overhead per extract call, against a loopback OpenAI-compatible
// provider.
//
// The provider stub (e2e/support/openai-stub.ts) runs in this process and
// answers every chat-completions request with the same small JSON answer and
// a usage block. The built LLM service (dist/apps/llm-service/main.js) runs as
// its own process with LLM_PROVIDER_A_URL pointing at the stub.
//
// Each call is what a processor sends: POST /api/v1/extract in the messages
// form (an RTIO-style system message and a 2 KB document), output_format json,
// X-Service-Key. The direct call is the body the service sends the provider
// (model, messages, response_format) posted to the stub itself. Both clients
// use keep-alive agents and bodies serialised once.
//
//   - serial: p50 of direct and of through-the-service calls, interleaved in
//     rounds so that drift hits both; added latency = the difference of p50s;
//   - concurrency 16: requests/s through the service (and directly, for scale);
//   - from the service's /metrics: its mean time per extract request and per
//     provider call, whose difference is the time spent inside the service.
//
// BENCH_CPU_PROFILE_DIR=<dir> runs the service under bench/cpu-profiler.cjs and
// prints the functions with the most self time.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { OpenAiStub } from '../e2e/support/openai-stub';
import { report, runConcurrent, summarize } from './support';

const SERIAL = Number(process.env.BENCH_SERIAL ?? 3000);
const ROUNDS = 10;
const TOTAL = Number(process.env.BENCH_REQUESTS ?? 20000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const ROOT = path.resolve(__dirname, '..', '..');
const SERVICE_KEY = 'bench-service-key-0123456789abcdef0123456789';
const MODEL = 'gpt-4o-mini';

const DOCUMENT = Array.from({ length: 24 }, (_, i) => `Line ${i + 1} of the supplier invoice INV-2024-${1000 + i}: 3 x item ${i} at 12.50 EUR, delivered 2024-03-0${(i % 9) + 1}.`).join('\n');
const MESSAGES = [
  {
    role: 'system',
    content:
      'You are an expert at extracting structured data from invoices.\n\nTasks:\n1. Find the invoice number, the vendor and the total.\n\n' +
      'Output format: JSON. Respond with a single JSON object.\nExample output:\n{"invoice_number": "INV-0001", "vendor": "Acme Corp", "total": 120.0}',
  },
  { role: 'user', content: `Document:\n<document>\n${DOCUMENT}\n</document>` },
];
const ANSWER = JSON.stringify({ invoice_number: 'INV-2024-1000', vendor: 'Acme Office Supplies Ltd', total: 900.0 });

const EXTRACT_BODY = Buffer.from(JSON.stringify({ messages: MESSAGES, output_format: 'json', model_type: 'provider_a' }));
const DIRECT_BODY = Buffer.from(JSON.stringify({ model: MODEL, messages: MESSAGES, response_format: { type: 'json_object' } }));

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

/** One POST over the keep-alive agent; resolves with the status once the whole answer is read. */
function post(url: URL, body: Buffer, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { agent, method: 'POST', host: url.hostname, port: url.port, path: url.pathname, headers: { 'content-type': 'application/json', 'content-length': body.length, ...headers } },
      (res) => {
        res.on('data', () => undefined);
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function timed(call: () => Promise<number>): Promise<number> {
  const t0 = performance.now();
  const status = await call();
  const ms = performance.now() - t0;
  if (status !== 200) throw new Error(`a call answered ${status}`);
  return ms;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const port = (probe.address() as net.AddressInfo).port;
      probe.close(() => resolve(port));
    });
  });
}

interface Service {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

async function startService(providerUrl: string, profileDir: string | undefined): Promise<Service> {
  const port = await freePort();
  const child = spawn(process.execPath, [path.join(ROOT, 'dist', 'apps', 'llm-service', 'main.js')], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'test',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      LOG_FORMAT: 'json',
      LLM_SERVICE_PORT: String(port),
      SERVICE_KEY,
      INTERNAL_SERVICE_JWT_SECRET: 'bench-internal-secret-0123456789abcdef012345',
      LLM_PROVIDER_A_URL: providerUrl,
      LLM_PROVIDER_A_KIND: 'openai',
      LLM_PROVIDER_A_API_KEY: 'sk-bench',
      LLM_PROVIDER_A_MODEL: MODEL,
      ...(profileDir ? { NODE_OPTIONS: `--require ${path.join(ROOT, 'bench', 'cpu-profiler.cjs')}`, CPU_PROF_DIR: profileDir } : {}),
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`llm-service exited with ${child.exitCode}`);
    // Listening (its /_health stays 503 here: no Data Shield gateway runs).
    const status = await fetch(`${url}/metrics`).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) break;
    if (Date.now() > deadline) throw new Error(`llm-service /metrics did not answer 200 within 30 s (last: ${status})`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    url,
    child,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** [sum, count] of a histogram's series whose labels contain `match`. */
function histogram(text: string, name: string, match: string): [number, number] {
  let sum = 0;
  let count = 0;
  for (const m of text.matchAll(new RegExp(`^${name}_(sum|count)\\{([^}]*)\\} (\\S+)$`, 'gm'))) {
    if (!m[2]!.includes(match)) continue;
    if (m[1] === 'sum') sum += Number(m[3]);
    else count += Number(m[3]);
  }
  return [sum, count];
}

interface ServerTimes {
  extract: [number, number];
  provider: [number, number];
  cpu: number;
}

async function serverTimes(url: string): Promise<ServerTimes> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const value = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  return {
    extract: histogram(text, 'http_request_duration_seconds', 'route="/api/v1/extract"'),
    provider: histogram(text, 'llm_request_duration_seconds', 'provider="openai"'),
    cpu: value('process_cpu_user_seconds_total') + value('process_cpu_system_seconds_total'),
  };
}

const meanMs = (a: [number, number], b: [number, number]) => ((b[0] - a[0]) / Math.max(1, b[1] - a[1])) * 1000;

/** The functions with the most self time in the service's CPU profile. */
function topSelfTime(dir: string, limit = 15): Record<string, string | number>[] {
  const file = readdirSync(dir)
    .filter((f) => f.startsWith('llm-service-') && f.endsWith('.cpuprofile'))
    .sort()
    .pop();
  if (!file) return [];
  const profile = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as {
    nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
    samples: number[];
  };
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  for (const id of profile.samples) {
    const f = byId.get(id)?.callFrame;
    if (!f) continue;
    const where = f.url ? `${f.url.replace(/^.*node_modules\//, '').replace(`file://${ROOT}/`, '')}:${f.lineNumber + 1}` : '';
    const key = `${f.functionName || '(anonymous)'} ${where}`.trim();
    self.set(key, (self.get(key) ?? 0) + 1);
  }
  const total = profile.samples.length || 1;
  return [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([fn, n]) => ({ 'self %': +((n / total) * 100).toFixed(1), function: fn.slice(0, 110) }));
}

async function main(): Promise<void> {
  const profileDir = process.env.BENCH_CPU_PROFILE_DIR ? path.resolve(process.env.BENCH_CPU_PROFILE_DIR) : undefined;
  if (profileDir) mkdirSync(profileDir, { recursive: true });
  const stub = await OpenAiStub.start({ answer: () => ({ content: ANSWER, promptTokens: 700, completionTokens: 30 }), model: `${MODEL}-2024-07-18` });
  const service = await startService(stub.baseUrl, profileDir);
  const direct = new URL(`${stub.baseUrl}/chat/completions`);
  const extract = new URL(`${service.url}/api/v1/extract`);
  const callDirect = () => post(direct, DIRECT_BODY, { authorization: 'Bearer sk-bench' });
  const callService = () => post(extract, EXTRACT_BODY, { 'x-service-key': SERVICE_KEY });
  let stopped = false;
  try {
    // Warm-up: JIT, sockets, the service's lazy paths.
    await runConcurrent(2000, CONCURRENCY, async () => void (await timed(callService)));
    await runConcurrent(2000, CONCURRENCY, async () => void (await timed(callDirect)));

    const directMs: number[] = [];
    const serviceMs: number[] = [];
    const before = await serverTimes(service.url);
    const perRound = Math.ceil(SERIAL / ROUNDS);
    for (let r = 0; r < ROUNDS; r++) {
      await runConcurrent(perRound, 1, async () => void directMs.push(await timed(callDirect)));
      await runConcurrent(perRound, 1, async () => void serviceMs.push(await timed(callService)));
    }
    const afterSerial = await serverTimes(service.url);

    const loadedMs: number[] = [];
    const connectionsBefore = stub.connections;
    const t0 = performance.now();
    await runConcurrent(TOTAL, CONCURRENCY, async () => void loadedMs.push(await timed(callService)));
    const seconds = (performance.now() - t0) / 1000;
    const afterLoaded = await serverTimes(service.url);
    const serviceConnections = stub.connections - connectionsBefore;

    const directLoaded: number[] = [];
    const t1 = performance.now();
    await runConcurrent(TOTAL, CONCURRENCY, async () => void directLoaded.push(await timed(callDirect)));
    const directSeconds = (performance.now() - t1) / 1000;

    const d = summarize(directMs);
    const s = summarize(serviceMs);
    const l = summarize(loadedMs);
    const dl = summarize(directLoaded);
    const added = s.p50 - d.p50;
    const rate = TOTAL / seconds;
    const inside = {
      serial: { request_ms: meanMs(before.extract, afterSerial.extract), provider_ms: meanMs(before.provider, afterSerial.provider) },
      loaded: { request_ms: meanMs(afterSerial.extract, afterLoaded.extract), provider_ms: meanMs(afterSerial.provider, afterLoaded.provider) },
    };
    const cpuPerRequestMs = ((afterLoaded.cpu - afterSerial.cpu) / TOTAL) * 1000;

    console.log('\ninside the service (its /metrics): mean ms per extract request, per provider call, and the difference');
    console.table(
      Object.entries(inside).map(([run, t]) => ({
        run,
        'request ms': +t.request_ms.toFixed(3),
        'provider call ms': +t.provider_ms.toFixed(3),
        'in-service ms': +(t.request_ms - t.provider_ms).toFixed(3),
      })),
    );
    console.log(`connections the service opened to the provider during the ${TOTAL} loaded requests: ${serviceConnections}`);
    console.log(`service CPU per request at concurrency ${CONCURRENCY}: ${cpuPerRequestMs.toFixed(3)} ms (the machine has 2 cores, shared by this client and its stub)`);

    let profile: Record<string, string | number>[] = [];
    if (profileDir) {
      await service.stop();
      stopped = true;
      profile = topSelfTime(profileDir);
      console.log('llm-service CPU profile, top self time:');
      console.table(profile);
    }

    report(
      'llm-service',
      [
        { scenario: 'direct to the stub, concurrency 1', requests: d.n, 'p50 ms': +d.p50.toFixed(3), 'p95 ms': +d.p95.toFixed(3), 'requests/s': '', target: '' },
        { scenario: 'through the LLM service, concurrency 1', requests: s.n, 'p50 ms': +s.p50.toFixed(3), 'p95 ms': +s.p95.toFixed(3), 'requests/s': '', target: '' },
        { scenario: 'added latency (p50 difference)', requests: '', 'p50 ms': +added.toFixed(3), 'p95 ms': '', 'requests/s': '', target: '≤ 2 ms' },
        {
          scenario: `through the LLM service, concurrency ${CONCURRENCY}`,
          requests: l.n,
          'p50 ms': +l.p50.toFixed(3),
          'p95 ms': +l.p95.toFixed(3),
          'requests/s': +rate.toFixed(0),
          target: '≥ 1,000 requests/s',
        },
        {
          scenario: `direct to the stub, concurrency ${CONCURRENCY}`,
          requests: dl.n,
          'p50 ms': +dl.p50.toFixed(3),
          'p95 ms': +dl.p95.toFixed(3),
          'requests/s': +(TOTAL / directSeconds).toFixed(0),
          target: '',
        },
      ],
      {
        request: { form: 'messages', document_chars: DOCUMENT.length, output_format: 'json', provider: 'openai (loopback stub in the bench process)', model: MODEL },
        targets_met: { added_latency: added <= 2, throughput: rate >= 1000 },
        in_service_ms: inside,
        service_cpu_ms_per_request: +cpuPerRequestMs.toFixed(3),
        provider_connections_opened_under_load: serviceConnections,
        ...(profile.length ? { cpu_profile_top_self_time: profile } : {}),
      },
    );
  } finally {
    if (!stopped) await service.stop();
    await stub.stop();
    agent.destroy();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
