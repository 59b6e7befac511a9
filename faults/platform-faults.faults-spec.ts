/**
 * The fault suite (issue #15 item 1; `npm run test:faults`, never part of `npm test`): the built stack with
 * three workflow-processor replicas, two extraction-processor replicas and two router workers under a steady
 * mixed load (decision + REST to an idempotent sink, e-mail to a loopback SMTP server, wait_task, user-input
 * pauses, webhook triggers, uploads); each scenario injects one fault while the load runs, then checks the
 * ledger (faults/support/fault-stack.ts: every accepted execution ends once, every side effect happened once
 * per idempotency key, refused starts did nothing, no 5xx but 503, DLQs hold only what the scenario injected).
 *
 * It stops and restarts this machine's RabbitMQ and PostgreSQL: run it alone.
 */
import amqp from 'amqplib';
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { uploadText } from '../e2e/support/document-jobs';
import { eventually } from '../e2e/support/stack';
import { brokenPromises, FaultStack, report, sleep, WORK_QUEUES, type Ledger, type Submission } from './support/fault-stack';

jest.setTimeout(600000);
const run = promisify(execFile);

const STORAGE_MOUNT = path.join('/tmp', `docflow-faults-storage-${process.pid}`);
let fs: FaultStack;
/** DLQ messages the scenarios put there on purpose, per queue. */
const injected: Record<string, number> = Object.fromEntries(WORK_QUEUES.map((q) => [`${q}.dlq`, 0]));

function check(ledger: Ledger, options: { allowFailed?: boolean } = {}): void {
  report(ledger);
  expect(brokenPromises(ledger, { ...options, expectedDlq: injected })).toEqual([]);
}

/** Runs the steady load for `beforeMs`, calls `fault`, keeps the load for `afterMs`, then returns every submission. */
async function underLoad(fault: () => Promise<unknown>, options: { beforeMs?: number; afterMs?: number; perSecond?: number } = {}): Promise<Submission[]> {
  fs.resetErrors();
  const load = fs.startLoad({ perSecond: options.perSecond ?? 2 });
  await sleep(options.beforeMs ?? 4000);
  try {
    await fault();
  } finally {
    await sleep(options.afterMs ?? 5000);
  }
  return load.stop();
}

async function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

async function waitFor(what: string, ok: () => Promise<boolean>, timeoutMs = 120000): Promise<void> {
  await eventually(async () => ((await ok()) ? true : undefined), timeoutMs, what);
}

async function stackHealthy(): Promise<void> {
  for (const s of ['public-api', 'router', 'workflow-processor', 'extraction-processor'] as const) await fs.stack.waitForHealth(s, 204, 120000);
}

async function sql<T>(text: string, params: unknown[] = []): Promise<T[]> {
  const client = new Client({ connectionString: fs.stack.db.url });
  await client.connect();
  try {
    return (await client.query(text, params)).rows as T[];
  } finally {
    await client.end();
  }
}

async function publishRaw(queue: string, bodies: (string | Buffer)[], options: amqp.Options.Publish = {}): Promise<void> {
  const conn = await amqp.connect(fs.stack.vhost.url);
  try {
    const ch = await conn.createConfirmChannel();
    for (const body of bodies) ch.sendToQueue(queue, Buffer.isBuffer(body) ? body : Buffer.from(body), { persistent: true, contentType: 'application/json', ...options });
    await ch.waitForConfirms();
    await ch.close();
  } finally {
    await conn.close();
  }
}

beforeAll(async () => {
  // The storage volume is a small tmpfs of its own, so the "volume full" scenario can fill it.
  mkdirSync(STORAGE_MOUNT, { recursive: true });
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=48m', 'tmpfs', STORAGE_MOUNT]);
  fs = await FaultStack.start({ portOffset: 800, workflowReplicas: 3, extractionReplicas: 2, routerReplicas: 2, env: { STORAGE_DIR: STORAGE_MOUNT } });
});

afterAll(async () => {
  await fs?.stop();
  await run('umount', [STORAGE_MOUNT]).catch(() => undefined);
  rmSync(STORAGE_MOUNT, { recursive: true, force: true });
});

describe('fault suite', () => {
  it('SIGKILL of the workflow-processor replica holding a run, three times: nothing accepted is lost or done twice', async () => {
    fs.sinkDelayMs = 600;
    const killed: number[] = [];
    const subs = await underLoad(async () => {
      for (let i = 0; i < 3; i += 1) {
        killed.push(await fs.killHolder('workflow-processor'));
        await sleep(2000);
      }
    });
    fs.sinkDelayMs = 100;
    check(await fs.ledger('sigkill-workflow-processor-holder', subs, { killedReplicas: killed }));
    expect(subs.filter((s) => s.id !== undefined).length).toBeGreaterThan(10);
  });

  it('SIGKILL of the extraction-processor replica holding a job, twice: every accepted classification job ends once', async () => {
    const docs = await Promise.all([0, 1, 2].map((i) => uploadText(fs.alice, `extract ${i}`, `Invoice number ${i}\nTotal due 120 EUR\nPayment within 30 days.`)));
    const collection = (await fs.alice.expect<{ id: number }>(201, 'POST', '/collections/create-collection', { data: { name: 'fault extraction', documents: docs } })).id;
    const jobs: string[] = [];
    const killed: number[] = [];
    const submitJobs = async (n: number) => {
      for (let i = 0; i < n; i += 1) {
        const res = await fs.alice.request<{ job_id: string }>('POST', `/jobs/collection/${collection}/generate`, { job_type: 'classification' });
        if (res.status === 200 || res.status === 201 || res.status === 202) jobs.push(res.body.job_id);
      }
    };
    const subs = await underLoad(async () => {
      await submitJobs(6);
      for (let i = 0; i < 2; i += 1) {
        killed.push(await fs.killHolder('extraction-processor', 30000).catch(() => -1));
        await submitJobs(3);
      }
    });
    const ends: Record<string, number> = {};
    for (const job of jobs) {
      const end = await eventually(
        async () => {
          const res = await fs.alice.request<{ status: string }>('GET', `/jobs/${job}/status`);
          return res.status === 200 && ['completed', 'failed'].includes(res.body.status) ? res.body.status : undefined;
        },
        120000,
        `job ${job} to end`,
      );
      ends[end] = (ends[end] ?? 0) + 1;
    }
    check(await fs.ledger('sigkill-extraction-processor-holder', subs, { extractionJobs: jobs.length, extractionEnds: ends, killedReplicas: killed }));
    expect(ends['completed']).toBe(jobs.length);
    expect(killed.filter((k) => k >= 0).length).toBeGreaterThan(0);
  });

  it('SIGKILL of router workers under load: the cluster replaces them and no result is lost', async () => {
    const killedPids: number[] = [];
    const subs = await underLoad(async () => {
      for (let i = 0; i < 2; i += 1) {
        const workers = await fs.routerWorkers();
        const victim = workers[i % workers.length];
        if (victim !== undefined) {
          process.kill(victim, 'SIGKILL');
          killedPids.push(victim);
        }
        await sleep(3000);
      }
    });
    check(await fs.ledger('sigkill-router-worker', subs, { killedPids, workersAfter: (await fs.routerWorkers()).length }));
    expect(killedPids).toHaveLength(2);
  });

  it('RabbitMQ stop_app / start_app under load: starts answer 503 with Retry-After while it is down, in-flight work finishes after', async () => {
    const subs = await underLoad(async () => {
      await run('rabbitmqctl', ['-q', 'stop_app']);
      await sleep(6000);
      await run('rabbitmqctl', ['-q', 'start_app']);
      await run('rabbitmqctl', ['-q', 'await_startup']);
      await stackHealthy();
    });
    const refusedStatuses = subs.filter((s) => s.id === undefined).map((s) => s.status);
    check(await fs.ledger('rabbitmq-stop-start-app', subs, { refusedStatuses }));
    // Starts were refused while the broker was down, each with 503 (and Retry-After, checked by the ledger).
    expect(refusedStatuses.filter((s) => s === 503).length).toBeGreaterThan(0);
  });

  it('RabbitMQ restarted as a whole under load: the services reconnect and nothing accepted is lost', async () => {
    const subs = await underLoad(async () => {
      await run('rabbitmqctl', ['-q', 'stop']);
      await waitFor('RabbitMQ to stop', async () => !(await portOpen(5672)), 60000);
      await run('rabbitmq-server', ['-detached']);
      await waitFor('RabbitMQ on 5672', () => portOpen(5672), 120000);
      await run('rabbitmqctl', ['-q', 'await_startup']);
      await stackHealthy();
    });
    check(await fs.ledger('rabbitmq-full-restart', subs, { refusedStatuses: subs.filter((s) => s.id === undefined).map((s) => s.status) }));
  });

  it('PostgreSQL: every service connection killed with pg_terminate_backend under load', async () => {
    let terminated = 0;
    const subs = await underLoad(async () => {
      for (let i = 0; i < 2; i += 1) {
        const rows = await sql<{ ok: boolean }>('SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
        terminated += rows.length;
        await sleep(3000);
      }
    });
    check(await fs.ledger('postgres-terminate-backends', subs, { terminated }));
    expect(terminated).toBeGreaterThan(0);
  });

  it('PostgreSQL restarted under load: the services reconnect and nothing accepted is lost', async () => {
    const subs = await underLoad(async () => {
      const version = readdirSync('/etc/postgresql')[0]!;
      await run('pg_ctlcluster', ['--skip-systemctl-redirect', version, 'main', 'restart']);
      await stackHealthy();
    });
    check(await fs.ledger('postgres-restart', subs));
  });

  it('public API restarted while results are in flight: no result is lost between the queue and the record', async () => {
    fs.sinkDelayMs = 400;
    const subs = await underLoad(async () => {
      await fs.stack.restart('public-api');
      await stackHealthy();
    });
    fs.sinkDelayMs = 100;
    check(await fs.ledger('public-api-restart', subs));
  });

  it('a poison and a malformed message on each queue go to its dead-letter queue, the queue keeps flowing, /metrics shows the depth', async () => {
    const poison = JSON.stringify({ version: 1, job_id: 42, job_type: 'nonsense', payload: 'not an object' });
    for (const queue of WORK_QUEUES) {
      await publishRaw(queue, ['{not json', poison]);
      injected[`${queue}.dlq`] = (injected[`${queue}.dlq`] ?? 0) + 2;
    }
    const depths = await eventually(
      async () => {
        const d = await fs.dlqDepths();
        return Object.entries(injected).every(([q, n]) => d[q] === n) ? d : undefined;
      },
      60000,
      `dead-letter depths ${JSON.stringify(injected)}`,
    );
    const subs = await underLoad(async () => undefined, { beforeMs: 4000, afterMs: 2000 });
    // The router's gauge of each dead-letter queue (read from the broker every QUEUE_METRICS_INTERVAL_MS).
    const metricLines = await eventually(
      async () => {
        const text = await (await fetch(`${fs.stack.url('router')}/metrics`)).text();
        const lines = text.split('\n').filter((l) => l.startsWith('docflow_queue_dlq_messages{'));
        return WORK_QUEUES.every((q) => lines.some((l) => l.includes(`queue="${q}"`) && l.endsWith(` ${injected[`${q}.dlq`]}`))) ? lines : undefined;
      },
      30000,
      'the DLQ depths on the router /metrics',
    );
    check(await fs.ledger('poison-and-malformed-on-each-queue', subs, { dlqAfterInjection: depths, dlqMetricLines: metricLines }));
  });

  it('the same job delivered twice has one effect; a result for an unknown or finished execution changes nothing', async () => {
    // A real job message, taken off workflow_queue by a competing consumer, then delivered twice.
    const conn = await amqp.connect(fs.stack.vhost.url);
    const ch = await conn.createChannel();
    await ch.prefetch(1);
    let captured: amqp.ConsumeMessage | undefined;
    const { consumerTag } = await ch.consume('workflow_queue', (msg) => {
      if (!msg) return;
      if (captured) return ch.nack(msg, false, true);
      captured = msg;
    });
    const subs: Submission[] = [];
    for (let i = 0; i < 40 && !captured; i += 1) subs.push(await fs.submit('rest', i));
    await ch.cancel(consumerTag);
    expect(captured).toBeDefined();
    const msg = captured!;
    await publishRaw('workflow_queue', [msg.content, msg.content], { messageId: msg.properties.messageId as string, headers: msg.properties.headers });
    ch.ack(msg);
    await ch.close();
    await conn.close();
    const job = JSON.parse(msg.content.toString('utf8')) as { job_id: string; payload: { execution_id?: number } };
    const duplicated = Number(job.payload.execution_id ?? /\d+/.exec(job.job_id)?.[0]);
    const first = await fs.ledger('job-delivered-twice', subs, { duplicatedExecution: duplicated });
    check(first);
    expect(fs.rest.callsOf(`exec-${duplicated}`)).toBeGreaterThanOrEqual(1);

    // Late results: one for an execution that does not exist, one saying a completed execution failed.
    const completed = subs.find((s) => s.id !== undefined)!.id!;
    const late = (execution: number) =>
      JSON.stringify({
        version: 1,
        job_id: `wf_${execution}`,
        status: 'failed',
        execution_id: execution,
        error: 'late result',
        error_type: 'execution_error',
        sequence: 1_000_000,
        emitted_at: new Date().toISOString(),
      });
    await publishRaw('results_queue', [late(987654321), late(completed)]);
    await sleep(3000);
    const after = await fs.alice.status(completed);
    expect(after.status).toBe('completed');
    const ledger = await fs.ledger('late-results', subs, { lateResultFor: [987654321, completed] });
    check(ledger);
  });

  it('the storage volume full: uploads answer 507 or 503, nothing is half-written, the quota is unchanged', async () => {
    const aliceId = (await fs.alice.me()).id;
    const usage = async () => Number((await sql<{ used_bytes: string }>('SELECT used_bytes FROM user_storage_usage WHERE user_id = $1', [aliceId]))[0]?.used_bytes ?? 0);
    const files = () => execFileSync('find', [STORAGE_MOUNT, '-type', 'f']).toString().split('\n').filter(Boolean).sort();
    const filler = path.join(STORAGE_MOUNT, 'filler.bin');
    // Fill the volume to within 64 KiB.
    const free = Number(execFileSync('df', ['--output=avail', '-B1', STORAGE_MOUNT]).toString().split('\n')[1]);
    execFileSync('fallocate', ['-l', String(Math.max(0, free - 64 * 1024)), filler]);
    const usedBefore = await usage();
    const filesBefore = files();
    const statuses: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      const form = new FormData();
      form.append('title', `too big ${i}`);
      form.append('file', new Blob([Buffer.alloc(512 * 1024, 'a')], { type: 'text/plain' }), `big-${i}.txt`);
      const res = await fetch(`${fs.stack.api}/documents/upload`, { method: 'POST', headers: { authorization: `Bearer ${fs.alice.jwt}` }, body: form });
      await res.text();
      statuses.push(res.status);
    }
    const usedAfter = await usage();
    const filesAfter = files();
    rmSync(filler);
    const ok = await fetch(`${fs.stack.api}/documents/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fs.alice.jwt}` },
      body: (() => {
        const form = new FormData();
        form.append('title', 'after the volume has room');
        form.append('file', new Blob([Buffer.alloc(512 * 1024, 'b')], { type: 'text/plain' }), 'fits.txt');
        return form;
      })(),
    });
    const ledger = { scenario: 'storage-volume-full', statuses, usedBefore, usedAfter, filesAdded: filesAfter.filter((f) => !filesBefore.includes(f)), afterFreeing: ok.status };
    process.stdout.write(`LEDGER ${JSON.stringify(ledger)}\n`);
    for (const s of statuses) expect([503, 507]).toContain(s);
    expect(usedAfter).toBe(usedBefore);
    expect(ledger.filesAdded).toEqual([]);
    expect(ok.status).toBe(201);
  });

  it('a hung REST target: the processors stay responsive to other jobs (bounded waits, timeouts)', async () => {
    // Ten runs whose REST call never gets an answer (the node's timeout is 15 s), then the ordinary load.
    const hung: number[] = [];
    for (let i = 0; i < 10; i += 1) hung.push(await fs.alice.start(fs.activities.hung, { amount: i }));
    const t0 = Date.now();
    const subs = await underLoad(async () => undefined, { beforeMs: 5000, afterMs: 0 });
    const ledger = await fs.ledger('hung-rest-target', subs, {}, 60000);
    const normalDoneMs = Date.now() - t0;
    const hungEnds = await Promise.all(hung.map((id) => fs.alice.waitFor(id, { until: ['completed', 'failed', 'cancelled'], timeoutMs: 60000, pollMs: 500 })));
    check({ ...ledger, normalDoneMs, hungEnds: hungEnds.map((h) => `${h.status}:${h.error_type}`) });
    // The ordinary load was done while the hung calls still waited for their 15 s timeout.
    expect(normalDoneMs).toBeLessThan(15000 + 5000);
    expect(hungEnds.every((h) => h.status === 'failed' && h.error_type === 'timeout')).toBe(true);
  });
});
