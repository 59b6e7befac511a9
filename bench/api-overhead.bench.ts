// API overhead: CPU the public API spends per request on its hot paths,
// with all six services local. Each scenario sends BENCH_REQUESTS requests
// at concurrency 8 from a keep-alive client and divides the public API's CPU
// seconds (from its /metrics) by the requests sent:
//   - GET /_health: health checks (database, storage);
//   - GET /api/no-such-route: the HTTP floor (every route tried, then the 404 body);
//   - GET /api/users/me: authentication alone (token verified, user read);
//   - GET /api/workflow-executions/{id}/status: authentication and one read;
//   - POST /api/workflow-executions: authentication, validation, one insert.
// BENCH_ONLY=<text> runs the scenarios whose name contains it.
// BENCH_CPU_PROFILE_DIR writes a .cpuprofile per service (bench/cpu-profiler.cjs).
// BENCH_OTEL=true exports traces (OTEL_EXPORTER_OTLP_ENDPOINT) to a loopback
// OTLP receiver, to compare with a run without (issue #18 item 5).
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { OtlpReceiver } from '@docflow/testing';
import { Stack } from '../e2e/support/stack';
import { httpRequest } from '../e2e/support/lean-http';
import { definition, edge, endNode, objectSchema, startNode, WorkflowApi } from '../e2e/support/workflow-api';
import { report, serviceCpuSeconds } from './support';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 4000);
const CONCURRENCY = 8;
const ROOT = path.resolve(__dirname, '..', '..');

const ONLY = process.env.BENCH_ONLY;
const OTEL = process.env.BENCH_OTEL === 'true';

async function scenario(stack: Stack, name: string, send: () => Promise<number>, expected: number): Promise<Record<string, string | number>> {
  if (ONLY && !name.includes(ONLY)) return { scenario: name, requests: 0 };
  for (let i = 0; i < 300; i++) await send(); // warm-up
  const cpu0 = await serviceCpuSeconds(stack.url('public-api'));
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < REQUESTS) {
        const status = await send();
        if (status !== expected) throw new Error(`${name} answered ${status}`);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const cpu = (await serviceCpuSeconds(stack.url('public-api'))) - cpu0;
  return { scenario: name, requests: REQUESTS, 'requests/s': +(REQUESTS / seconds).toFixed(0), 'public-api CPU µs/request': +((cpu / REQUESTS) * 1e6).toFixed(0) };
}

async function main(): Promise<void> {
  const profileDir = process.env.BENCH_CPU_PROFILE_DIR ? path.resolve(process.env.BENCH_CPU_PROFILE_DIR) : undefined;
  if (profileDir) mkdirSync(profileDir, { recursive: true });
  const profile: Record<string, string> = profileDir ? { NODE_OPTIONS: `--require ${path.join(ROOT, 'bench', 'cpu-profiler.cjs')}`, CPU_PROF_DIR: profileDir } : {};
  const receiver = OTEL ? await OtlpReceiver.start() : undefined;
  const otel: Record<string, string> = receiver ? { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint } : {};
  const stack = await Stack.start({ portOffset: 700, env: { LOG_LEVEL: 'warn', ...profile, ...otel } });
  try {
    const api = await WorkflowApi.login(stack.api, 'alice@docflow.local', 'Alice#Pass123');
    const workflow = definition([startNode(), endNode('done', 'Done')], [edge('start', 'done')], objectSchema({ amount: { type: 'number' } }));
    const activityId = await api.createActivity({ name: 'overhead bench', workflow_definition: workflow, status: 'active' });
    const executionId = await api.createExecution(activityId, { amount: 1 });
    const auth = { authorization: `Bearer ${api.jwt}` };
    const createBody = JSON.stringify({ data: { activity: activityId, inputs: { amount: 5 } } });
    const rows = [
      await scenario(stack, 'GET /_health', async () => (await httpRequest(`${stack.url('public-api')}/_health`, { method: 'GET' })).status, 204),
      await scenario(stack, 'GET /api/no-such-route (404)', async () => (await httpRequest(`${stack.api}/no-such-route`, { method: 'GET' })).status, 404),
      await scenario(stack, 'GET /api/users/me', async () => (await httpRequest(`${stack.api}/users/me`, { method: 'GET', headers: auth })).status, 200),
      await scenario(
        stack,
        'GET /api/workflow-executions/{id}/status',
        async () => (await httpRequest(`${stack.api}/workflow-executions/${executionId}/status`, { method: 'GET', headers: auth })).status,
        200,
      ),
      await scenario(
        stack,
        'POST /api/workflow-executions',
        async () => (await httpRequest(`${stack.api}/workflow-executions`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: createBody })).status,
        201,
      ),
    ];
    report(OTEL ? 'api-overhead-otel' : 'api-overhead', rows, { concurrency: CONCURRENCY, otel: OTEL, ...(receiver ? { spans_received: receiver.spans.length } : {}) });
  } finally {
    await stack.stop();
    await receiver?.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
