// Webhook triggers (issue #16 item 6): autocannon posts to one webhook's
// trigger URL (`POST /api/webhooks/trigger/{id}` with its secret and a small
// JSON body) for BENCH_SECONDS (10) over BENCH_CONNECTIONS (50) keep-alive
// connections, against the whole stack (six services, the machine's
// PostgreSQL and RabbitMQ). The per-webhook rate limit and the running cap
// are raised by configuration (WEBHOOK_TRIGGERS_PER_MINUTE,
// WEBHOOK_MAX_RUNNING_EXECUTIONS_PER_USER) so that what is measured is the
// trigger path itself. Two measured runs: the connections as fast as they are
// answered (the most the stack accepts per second), then triggers offered at
// BENCH_WEBHOOK_RATE (1,000) per second over the same connections (autocannon's
// overallRate, latencies corrected for coordinated omission), which is the
// target's load. Each reports accepted triggers per second (2xx), latency
// percentiles of all answers and the answers that were not 2xx; after each, the
// bench waits until every accepted trigger's execution has completed and checks
// that there is one execution per accepted trigger (plus at most one per
// connection: requests in flight when autocannon stops are not counted).
// Target: ≥ 1,000 accepted triggers/s with p99 ≤ 50 ms at that rate. Also
// reports the public API's CPU milliseconds per accepted trigger during each
// run (its processes' process_cpu_seconds_total); BENCH_CPU_PROFILE_DIR=<dir>
// writes a .cpuprofile per service there (bench/cpu-profiler.cjs);
// BENCH_NODE_REQUIRE preloads more modules in every service (comma-separated);
// BENCH_PG_WAITS=true samples the stack's database backends' wait events during
// each measured run (bench/pg-waits.ts).
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import { Client } from 'pg';
import { Stack } from '../e2e/support/stack';
import { definition, edge, endNode, objectSchema, startNode, WorkflowApi } from '../e2e/support/workflow-api';
import { pgWaitsEnabled, printWaits, sampleWaits } from './pg-waits';
import { report, serviceCpuSeconds } from './support';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const RATE = Number(process.env.BENCH_WEBHOOK_RATE ?? 1000);
const ROOT = path.resolve(__dirname, '..', '..');

function run(options: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(options, (err, result) => (err ? reject(err as Error) : resolve(result)));
  });
}

async function main(): Promise<void> {
  const profileDir = process.env.BENCH_CPU_PROFILE_DIR ? path.resolve(process.env.BENCH_CPU_PROFILE_DIR) : undefined;
  if (profileDir) mkdirSync(profileDir, { recursive: true });
  // BENCH_NODE_REQUIRE: more modules every service preloads (a diagnostic, e.g. bench/pg-statement-counter.cjs), as in the pipeline bench.
  const preloads = [...(profileDir ? [path.join(ROOT, 'bench', 'cpu-profiler.cjs')] : []), ...(process.env.BENCH_NODE_REQUIRE ?? '').split(',').filter(Boolean)];
  const profile: Record<string, string> = {
    ...(preloads.length ? { NODE_OPTIONS: preloads.map((p) => `--require ${p}`).join(' ') } : {}),
    ...(profileDir ? { CPU_PROF_DIR: profileDir } : {}),
  };
  const stack = await Stack.start({
    portOffset: 700,
    env: { LOG_LEVEL: 'warn', WEBHOOK_TRIGGERS_PER_MINUTE: '1000000', WEBHOOK_MAX_RUNNING_EXECUTIONS_PER_USER: process.env.BENCH_WEBHOOK_MAX_RUNNING ?? '1000000', ...profile },
  });
  const db = new Client({ connectionString: stack.env['DATABASE_URL'] });
  try {
    const cli = path.join(ROOT, 'dist', 'apps', 'public-api', 'cli', 'user-create.js');
    const created = spawnSync(process.execPath, [cli, '--email', 'hooks@docflow.test', '--username', 'hooks', '--password', 'Hooks#Pass123456'], { env: stack.env, encoding: 'utf8' });
    if (created.status !== 0) throw new Error(`user:create failed: ${created.stderr}`);
    const api = await WorkflowApi.login(stack.api, 'hooks@docflow.test', 'Hooks#Pass123456');
    const activityId = await api.createActivity({
      name: 'webhook bench',
      status: 'active',
      workflow_definition: definition([startNode(), endNode('end', 'End')], [edge('start', 'end')], objectSchema({ n: { type: 'number' } })),
    });
    const hook = await api.expect<{ data: { id: number; secret_key: string } }>(201, 'POST', '/webhooks', { activity: activityId });
    const url = `${stack.api}/webhooks/trigger/${hook.data.id}`;
    const options: autocannon.Options = {
      url,
      method: 'POST',
      connections: CONNECTIONS,
      headers: { 'content-type': 'application/json', 'x-webhook-secret': hook.data.secret_key },
      body: JSON.stringify({ n: 1 }),
    };

    await run({ ...options, duration: 2 }); // warm-up: JIT, pools, prepared plans
    await new Promise((r) => setTimeout(r, 3000)); // the warm-up's last requests land
    await db.connect();

    const maxId = async () => Number((await db.query<{ n: string }>('SELECT coalesce(max(id), 0) AS n FROM workflow_executions')).rows[0]!.n);
    // One measured run: autocannon for SECONDS, then wait until every accepted trigger's execution has completed.
    const measure = async (label: string, extraOptions: Partial<autocannon.Options>) => {
      const before = Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM workflow_executions')).rows[0]!.n);
      const firstId = await maxId();
      const cpu0 = await serviceCpuSeconds(stack.url('public-api'));
      const sampler = pgWaitsEnabled ? await sampleWaits(stack.env['DATABASE_URL']!) : undefined;
      const result = await run({ ...options, ...extraOptions, duration: SECONDS });
      const waits = await sampler?.stop();
      if (waits) printWaits(label, waits);
      const apiCpu = (await serviceCpuSeconds(stack.url('public-api'))) - cpu0;
      const codes: Record<string, number> = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, s]) => [code, s.count ?? 0]));
      const accepted = Object.entries(codes)
        .filter(([code]) => code.startsWith('2'))
        .reduce((n, [, count]) => n + count, 0);

      // Every accepted trigger is one execution, and each completes.
      const deadline = Date.now() + 300_000;
      let counts: Record<string, number> = {};
      for (;;) {
        const rows = (await db.query<{ status: string; n: string }>('SELECT status, count(*) AS n FROM workflow_executions WHERE id > $1 GROUP BY status', [firstId])).rows;
        counts = Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
        const open = (counts['queued'] ?? 0) + (counts['running'] ?? 0);
        if (open === 0 || Date.now() > deadline) break;
        await new Promise((r) => setTimeout(r, 500));
      }
      const after = Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM workflow_executions')).rows[0]!.n);
      const rate = accepted / SECONDS;
      if (after - before < accepted || after - before > accepted + CONNECTIONS) throw new Error(`${label}: ${accepted} triggers accepted but ${after - before} executions created`);
      if ((counts['completed'] ?? 0) < accepted) throw new Error(`${label}: ${accepted} triggers accepted but only ${counts['completed'] ?? 0} executions completed: ${JSON.stringify(counts)}`);
      return {
        row: {
          scenario: label,
          'accepted/s': +rate.toFixed(1),
          'p50 ms': result.latency.p50,
          'p90 ms': result.latency.p90,
          'p99 ms': result.latency.p99,
          'max ms': result.latency.max,
          'non-2xx': result.non2xx,
          'public-api CPU ms/accepted': accepted > 0 ? +((apiCpu * 1000) / accepted).toFixed(2) : 0,
          errors: result.errors + result.timeouts,
        },
        extra: {
          status_codes: codes,
          executions_created: after - before,
          accepted,
          executions_by_status: counts,
          // autocannon stops counting at the deadline: up to one request per connection was still in flight and may have been
          // accepted, so a run may create up to CONNECTIONS executions more than it counted (checked above).
          one_execution_per_accepted_trigger: true,
          ...(waits ? { pg_waits: waits } : {}),
        },
        rate,
        p99: result.latency.p99,
      };
    };

    // Saturation: every connection sends its next trigger as soon as the last is answered. With CONNECTIONS in a closed
    // loop, the mean latency is CONNECTIONS / rate by Little's law (50 ms at 1,000/s for 50 connections), so this run gives
    // the most the stack accepts, not the latency at a given load.
    const saturated = await measure(`${CONNECTIONS} connections, as fast as answered, ${SECONDS} s`, {});
    // The target's load: triggers offered at RATE per second over the same connections (autocannon's overallRate, whose
    // latencies are corrected for coordinated omission: a request held back because the stack was slow counts from when it
    // was due). Accepted/s shows whether the stack kept up; the percentiles are the latency at that load.
    const offered = await measure(`${RATE}/s offered over ${CONNECTIONS} connections, ${SECONDS} s`, { overallRate: RATE });
    report(
      'webhook',
      [
        { ...saturated.row, target: '≥ 1000/s' },
        { ...offered.row, target: `≥ 1000/s accepted, p99 ≤ 50 ms` },
      ],
      {
        saturated: saturated.extra,
        offered: offered.extra,
        targets_met: { rate: saturated.rate >= 1000, at_1000_per_s: RATE >= 1000 && offered.rate >= 1000 * 0.99 && offered.p99 <= 50 },
      },
    );
  } finally {
    await db.end().catch(() => undefined);
    await stack.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
