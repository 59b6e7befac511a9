/**
 * The fault suite's and the soak's platform: the built stack (e2e/support/stack.ts) with processor replicas
 * beside Stack's own process (ports +1, +2, ...), router replicas (node:cluster, ROUTER_REPLICAS) and public API
 * workers (PUBLIC_API_WORKERS); loopback sinks that count side effects by idempotency key (a REST sink and an
 * SMTP server); a steady mixed load; and the ledger that checks what the load was promised.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { EffectLedger, HttpTarget, idempotentRoute, ledgerOfMails, LoopbackSmtp } from '@docflow/testing';
import { queueDepth } from '../../e2e/support/rabbit';
import { Stack, type ServiceName } from '../../e2e/support/stack';
import { chain, definition, edge, endNode, objectSchema, startNode, taskNode, WorkflowApi } from '../../e2e/support/workflow-api';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '..', '..');
const LOG_DIR = path.join(ROOT, '.tmp', 'e2e-logs');
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export type ProcessorName = 'workflow-processor' | 'extraction-processor';
export const WORK_QUEUES = ['workflow_queue', 'extraction_queue', 'results_queue', 'public_api_results_queue'] as const;
const IN_FLIGHT_GAUGE: Record<ProcessorName, string> = {
  'workflow-processor': 'workflow_executions_in_flight',
  'extraction-processor': 'extraction_jobs_in_flight',
};

export interface FaultStackOptions {
  portOffset: number;
  workflowReplicas?: number;
  extractionReplicas?: number;
  routerReplicas?: number;
  apiWorkers?: number;
  env?: Record<string, string>;
  /** How long the REST sink takes to answer (so that kills land mid-call). */
  sinkDelayMs?: number;
}

export type LoadKind = 'rest' | 'email' | 'wait' | 'input' | 'webhook' | 'upload';
const EXECUTION_KINDS: LoadKind[] = ['rest', 'rest', 'email', 'wait', 'input', 'webhook'];

/** One thing the load asked for. */
export interface Submission {
  kind: LoadKind;
  at: number;
  /** Execution id (workflow kinds) or document id (uploads); undefined when refused. */
  id?: number;
  /** The HTTP status of the request that decides acceptance (execute, trigger, upload). */
  status: number;
  retryAfter?: string | null;
  /** Execution created by POST /workflow-executions whose start was refused (it stays queued). */
  refusedId?: number;
}

export interface Ledger {
  scenario: string;
  accepted: number;
  byKind: Record<string, number>;
  refused: number;
  refusedWithoutRetryAfter: number;
  /** kind:status of each refused submission, counted. */
  refusedBy: Record<string, number>;
  terminal: Record<string, number>;
  notTerminal: number[];
  changedAfterTerminal: number[];
  restEffects: number;
  restRepeats: number;
  mailEffects: number;
  mailRepeats: number;
  missingEffects: number[];
  effectsOfRefused: number[];
  refusedNotQueued: string[];
  uploadsAccepted: number;
  uploadsMissing: number[];
  serverErrors: number;
  serverErrorSamples: string[];
  dlq: Record<string, number>;
  latencyMs: { p50: number; p99: number };
  [extra: string]: unknown;
}

interface Replica {
  index: number;
  child?: ChildProcess;
}

export class FaultStack {
  readonly rest = new EffectLedger();
  readonly mail = new EffectLedger();
  private mailsSeen = 0;
  readonly replicas: Record<ProcessorName, Replica[]> = { 'workflow-processor': [], 'extraction-processor': [] };
  private readonly serverErrorSamples: string[] = [];
  serverErrors = 0;
  /** Extra delay of the REST sink's answer; a scenario may change it. */
  sinkDelayMs: number;
  activities!: { rest: number; email: number; wait: number; input: number; hung: number };
  webhook!: { url: string; secret: string };
  private constructor(
    readonly stack: Stack,
    readonly sink: HttpTarget,
    readonly smtp: LoopbackSmtp,
    readonly alice: WorkflowApi,
    options: FaultStackOptions,
  ) {
    this.sinkDelayMs = options.sinkDelayMs ?? 100;
  }

  static async start(options: FaultStackOptions): Promise<FaultStack> {
    const [sink, smtp] = await Promise.all([HttpTarget.start('127.0.0.1'), LoopbackSmtp.start()]);
    mkdirSync(LOG_DIR, { recursive: true });
    const stack = await Stack.start({
      portOffset: options.portOffset,
      env: {
        REST_API_ALLOWED_HOSTS: sink.hostPort,
        SMTP_URL: smtp.url,
        MAIL_FROM: 'Docflow <faults@docflow.local>',
        MAX_RUNNING_EXECUTIONS_PER_USER: '1000',
        // The router reads queue and DLQ depths for /metrics this often.
        QUEUE_METRICS_INTERVAL_MS: '1000',
        ROUTER_REPLICAS: String(options.routerReplicas ?? 1),
        PUBLIC_API_WORKERS: String(options.apiWorkers ?? 1),
        ...(options.env ?? {}),
      },
    });
    const alice = await WorkflowApi.login(stack.api, 'alice@docflow.local', 'Alice#Pass123');
    const fs = new FaultStack(stack, sink, smtp, alice, options);
    for (const [name, n] of [
      ['workflow-processor', options.workflowReplicas ?? 1],
      ['extraction-processor', options.extractionReplicas ?? 1],
    ] as const) {
      fs.replicas[name].push({ index: 0 });
      for (let i = 1; i < n; i += 1) fs.replicas[name].push({ index: i, child: fs.spawnReplica(name, i) });
    }
    await Promise.all((['workflow-processor', 'extraction-processor'] as const).flatMap((name) => fs.replicas[name].map((r) => fs.waitReplicaHealthy(name, r.index))));
    await fs.prepare();
    return fs;
  }

  private async prepare(): Promise<void> {
    idempotentRoute(this.sink, '/fx', this.rest, async () => {
      if (this.sinkDelayMs > 0) await sleep(this.sinkDelayMs);
      return { body: { ok: true } };
    });
    // wait_task's status endpoint: every other poll says done, so each wait polls once or twice.
    let polls = 0;
    this.sink.on('GET /wait', () => ({ body: { job: { state: polls++ % 2 === 0 ? 'running' : 'completed' } } }));
    this.sink.on('POST /hang', () => ({ hang: true }));
    const effect = (id: string) => taskNode(id, 'rest_api_task', { url: this.sink.url('/fx'), method: 'POST', headers: { 'Idempotency-Key': 'exec-{{execution_id}}' }, body: { node: id } });
    const amount = objectSchema({ amount: { type: 'number' } });
    const decision = definition(
      [startNode(), taskNode('check', 'decision', { operator: '>', left_operand: '$.amount', right_operand: 500, true_label: 'big', false_label: 'small' }), effect('big'), effect('small'), endNode()],
      [edge('start', 'check'), edge('check', 'big', 'big'), edge('check', 'small', 'small'), edge('big', 'end'), edge('small', 'end')],
      amount,
    );
    const api = this.alice;
    const rest = await api.createActivity({ name: 'fault load: decision + REST', workflow_definition: decision, status: 'active' });
    const email = await api.createActivity({
      name: 'fault load: e-mail',
      workflow_definition: definition(
        [startNode(), taskNode('mail', 'email_send_task', { to: ['ops@example.com'], subject: 'exec-{{execution_id}}', body: 'Amount {{amount}}', html: false }), endNode()],
        chain('start', 'mail', 'end'),
        amount,
      ),
    });
    const wait = await api.createActivity({
      name: 'fault load: wait then REST',
      workflow_definition: definition(
        [startNode(), taskNode('w', 'wait_task', { endpoint: this.sink.url('/wait'), watch_field: 'job.state', poll_interval: 1, timeout: 120 }), effect('after'), endNode()],
        chain('start', 'w', 'after', 'end'),
        amount,
      ),
    });
    const input = await api.createActivity({
      name: 'fault load: user input then REST',
      workflow_definition: definition(
        [startNode(), taskNode('approve', 'user_input_task', { input_schema: objectSchema({ approved: { type: 'boolean' } }) }), effect('after'), endNode()],
        chain('start', 'approve', 'after', 'end'),
        amount,
      ),
    });
    const hung = await api.createActivity({
      name: 'fault load: hung REST target',
      workflow_definition: definition([startNode(), taskNode('slow', 'rest_api_task', { url: this.sink.url('/hang'), method: 'POST', timeout: 15 }), endNode()], chain('start', 'slow', 'end'), amount),
    });
    this.activities = { rest, email, wait, input, hung };
    const hook = await api.expect<{ data: { id: number; secret_key: string } }>(201, 'POST', '/webhooks', { activity: rest, name: 'fault load' });
    this.webhook = { url: `${this.stack.api}/webhooks/trigger/${hook.data.id}`, secret: hook.data.secret_key };
  }

  // --- processes ---------------------------------------------------------------------------------------

  portOf(name: ProcessorName, index: number): number {
    return this.stack.ports[name] + index;
  }

  private spawnReplica(name: ProcessorName, index: number): ChildProcess {
    const log = createWriteStream(path.join(LOG_DIR, `${name}-${index}.log`), { flags: 'a' });
    const portVar = name === 'workflow-processor' ? 'WORKFLOW_PROCESSOR_PORT' : 'EXTRACTION_PROCESSOR_PORT';
    const child = spawn(process.execPath, [...this.stack.nodeFlags, path.join(ROOT, 'dist', 'apps', name, 'main.js')], {
      cwd: this.stack.workDir,
      env: { ...this.stack.env, [portVar]: String(this.portOf(name, index)) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.pipe(log);
    child.stderr?.pipe(log);
    return child;
  }

  pidOf(name: ProcessorName, index: number): number | undefined {
    return index === 0 ? this.stack.pid(name) : this.replicas[name][index]?.child?.pid;
  }

  async waitReplicaHealthy(name: ProcessorName, index: number, timeoutMs = 60000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const res = await fetch(`http://127.0.0.1:${this.portOf(name, index)}/_health`, { signal: AbortSignal.timeout(2000) }).catch(() => undefined);
      if (res?.status === 204) return;
      await sleep(200);
    }
    throw new Error(`${name} replica ${index} not healthy within ${timeoutMs} ms`);
  }

  /** SIGKILLs one replica and starts it again (what a supervisor does); resolves once it is healthy. */
  async killAndRestart(name: ProcessorName, index: number): Promise<void> {
    if (index === 0) {
      await this.stack.stopService(name, 'SIGKILL');
      this.stack.spawn(name);
    } else {
      const replica = this.replicas[name][index]!;
      const child = replica.child;
      if (child && child.exitCode === null && child.signalCode === null) {
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.kill('SIGKILL');
        await exited;
      }
      replica.child = this.spawnReplica(name, index);
    }
    await this.waitReplicaHealthy(name, index);
  }

  /** The in-flight gauge of each replica (workflow runs or extraction jobs it holds now); -1 when it does not answer. */
  async inFlight(name: ProcessorName): Promise<number[]> {
    return Promise.all(
      this.replicas[name].map(async (r) => {
        try {
          const res = await fetch(`http://127.0.0.1:${this.portOf(name, r.index)}/metrics`, { signal: AbortSignal.timeout(3000) });
          const text = await res.text();
          // `name{service="..."} 2` (the registry's default label) or `name 2`.
          const line = text.split('\n').find((l) => l.startsWith(`${IN_FLIGHT_GAUGE[name]}{`) || l.startsWith(`${IN_FLIGHT_GAUGE[name]} `));
          return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
        } catch {
          return -1;
        }
      }),
    );
  }

  /** Waits until some replica holds work, SIGKILLs that one (not a random one) and starts it again; returns its index. */
  async killHolder(name: ProcessorName, timeoutMs = 20000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const counts = await this.inFlight(name);
      const holders = counts.map((n, i) => (n > 0 ? i : -1)).filter((i) => i >= 0);
      const index = holders[Math.floor(Math.random() * holders.length)] ?? -1;
      if (index >= 0) {
        await this.killAndRestart(name, index);
        return index;
      }
      await sleep(50);
    }
    throw new Error(`no ${name} replica held work within ${timeoutMs} ms`);
  }

  /** Process ids of the router's cluster workers (children of its primary). */
  async routerWorkers(): Promise<number[]> {
    const primary = this.stack.pid('router');
    if (primary === undefined) return [];
    const { stdout } = await run('pgrep', ['-P', String(primary)]).catch(() => ({ stdout: '' }));
    return stdout
      .split('\n')
      .filter(Boolean)
      .map(Number)
      .filter((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('router'));
  }

  /** Resident set size of every service process, in MiB (cluster workers summed with their primary). */
  async rss(): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    const rssOf = (pid: number | undefined): number => {
      if (pid === undefined) return 0;
      try {
        const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
        return kb / 1024;
      } catch {
        return 0;
      }
    };
    const withChildren = async (pid: number | undefined): Promise<number> => {
      if (pid === undefined) return 0;
      const { stdout } = await run('pgrep', ['-P', String(pid)]).catch(() => ({ stdout: '' }));
      return (
        rssOf(pid) +
        stdout
          .split('\n')
          .filter(Boolean)
          .map(Number)
          .reduce((sum, p) => sum + rssOf(p), 0)
      );
    };
    for (const s of ['public-api', 'router', 'llm-service', 'data-shield'] as ServiceName[]) out[s] = Math.round(await withChildren(this.stack.pid(s)));
    for (const name of ['workflow-processor', 'extraction-processor'] as const) {
      for (const r of this.replicas[name]) out[`${name}#${r.index}`] = Math.round(rssOf(this.pidOf(name, r.index)));
    }
    return out;
  }

  async dlqDepths(): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const q of WORK_QUEUES) out[`${q}.dlq`] = await queueDepth(this.stack.vhost.url, `${q}.dlq`).catch(() => -1);
    return out;
  }

  async stop(): Promise<void> {
    for (const name of ['workflow-processor', 'extraction-processor'] as const) {
      for (const r of this.replicas[name]) {
        const child = r.child;
        if (!child || child.exitCode !== null || child.signalCode !== null) continue;
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 15000);
        await exited;
        clearTimeout(timer);
      }
    }
    await this.stack.stop();
    await Promise.all([this.sink.stop(), this.smtp.stop()]);
  }

  // --- load --------------------------------------------------------------------------------------------

  private noteStatus(status: number, what: string): void {
    if (status >= 500 && status !== 503) {
      this.serverErrors += 1;
      if (this.serverErrorSamples.length < 10) this.serverErrorSamples.push(`${status} ${what}`);
    }
  }

  /** One submission of `kind`; never throws (a network error counts as refused with status 0). */
  async submit(kind: LoadKind, n: number): Promise<Submission> {
    const at = Date.now();
    const amount = n % 2 === 0 ? 900 : 50;
    try {
      if (kind === 'upload') {
        const form = new FormData();
        form.append('title', `fault upload ${n}`);
        form.append('file', new Blob([`Fault-suite upload number ${n}.\nAmount ${amount}.`], { type: 'text/plain' }), `fault-${n}.txt`);
        const res = await fetch(`${this.alice.baseUrl}/documents/upload`, {
          method: 'POST',
          headers: { authorization: `Bearer ${this.alice.jwt ?? ''}` },
          body: form,
          signal: AbortSignal.timeout(15000),
        });
        const body = (await res.json().catch(() => ({}))) as { id?: number };
        this.noteStatus(res.status, 'POST /documents/upload');
        return { kind, at, status: res.status, retryAfter: res.headers.get('retry-after'), ...(res.status === 201 && typeof body.id === 'number' ? { id: body.id } : {}) };
      }
      if (kind === 'webhook') {
        const res = await fetch(this.webhook.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-webhook-secret': this.webhook.secret },
          body: JSON.stringify({ amount }),
          signal: AbortSignal.timeout(15000),
        });
        const body = (await res.json().catch(() => ({}))) as { execution_id?: number };
        this.noteStatus(res.status, 'POST /webhooks/trigger');
        return { kind, at, status: res.status, retryAfter: res.headers.get('retry-after'), ...(res.status === 200 && body.execution_id ? { id: body.execution_id } : {}) };
      }
      const activity = this.activities[kind as 'rest' | 'email' | 'wait' | 'input'];
      const created = await this.postJson('/workflow-executions', { data: { activity, inputs: { amount } } });
      this.noteStatus(created.status, 'POST /workflow-executions');
      if (created.status !== 201) return { kind, at, status: created.status, retryAfter: created.retryAfter };
      const id = (created.body as { data: { id: number } }).data.id;
      const started = await this.postJson(`/workflow-executions/${id}/execute`, {});
      this.noteStatus(started.status, 'POST /execute');
      if (started.status === 200) return { kind, at, id, status: 200 };
      return { kind, at, status: started.status, retryAfter: started.retryAfter, refusedId: id };
    } catch (err) {
      return { kind, at, status: 0, retryAfter: String(err) };
    }
  }

  /** A JSON POST as alice, with the answer's Retry-After (the ledger checks every 503 has one). */
  private async postJson(path: string, body: unknown): Promise<{ status: number; body: unknown; retryAfter: string | null }> {
    const res = await fetch(`${this.stack.api}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${this.alice.jwt ?? ''}` },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(15000),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text) as unknown;
    } catch {
      /* not JSON */
    }
    return { status: res.status, body: parsed, retryAfter: res.headers.get('retry-after') };
  }

  /** Starts a steady mixed load: `perSecond` submissions a second, rotating through the kinds, until stopped. */
  startLoad(options: { perSecond: number; kinds?: LoadKind[] }): Load {
    return new Load(this, options.perSecond, options.kinds ?? [...EXECUTION_KINDS, 'upload']);
  }

  // --- ledger ------------------------------------------------------------------------------------------

  /**
   * Drives every accepted execution to its end (resuming user-input pauses), then checks the ledger: one
   * terminal state each (read twice, 1 s apart, to see it does not change), one effect per completed
   * execution at its sink, none for refused starts (which stay queued), every accepted upload present.
   */
  async ledger(scenario: string, subs: Submission[], extra: Record<string, unknown> = {}, timeoutMs = 180000): Promise<Ledger> {
    const executions = subs.filter((s) => s.id !== undefined && s.kind !== 'upload');
    const terminalOf = new Map<number, string>();
    const completedAt = new Map<number, number>();
    const pending = new Set(executions.map((s) => s.id!));
    const deadline = Date.now() + timeoutMs;
    while (pending.size > 0 && Date.now() < deadline) {
      for (const id of [...pending]) {
        const res = await this.alice.request<{ data: { status: string; correlation_token: string | null; completed_at: string | null } }>('GET', `/workflow-executions/${id}/status`);
        this.noteStatus(res.status, 'GET /status');
        if (res.status !== 200) continue;
        const { status, correlation_token: token } = res.body.data;
        if (status === 'awaiting_user_input' && token) {
          const resumed = await this.alice.request('POST', `/workflow-executions/${id}/resume`, { correlation_token: token, payload: { approved: true } });
          this.noteStatus(resumed.status, 'POST /resume');
        } else if (['completed', 'failed', 'cancelled'].includes(status)) {
          terminalOf.set(id, status);
          if (res.body.data.completed_at) completedAt.set(id, Date.parse(res.body.data.completed_at));
          pending.delete(id);
        }
      }
      if (pending.size > 0) await sleep(500);
    }
    await sleep(1000);
    const changedAfterTerminal: number[] = [];
    for (const [id, status] of terminalOf) {
      const again = await this.alice.request<{ data: { status: string } }>('GET', `/workflow-executions/${id}/status`);
      if (again.status === 200 && again.body.data.status !== status) changedAfterTerminal.push(id);
    }
    this.mailsSeen = ledgerOfMails(this.smtp, this.mail, this.mailsSeen);
    const terminal: Record<string, number> = {};
    for (const status of terminalOf.values()) terminal[status] = (terminal[status] ?? 0) + 1;
    const keyOf = (id: number) => `exec-${id}`;
    const restIds = executions.filter((s) => s.kind !== 'email').map((s) => keyOf(s.id!));
    const mailIds = executions.filter((s) => s.kind === 'email').map((s) => keyOf(s.id!));
    const rest = this.rest.summary(restIds);
    const mail = this.mail.summary(mailIds);
    const missingEffects = executions
      .filter((s) => terminalOf.get(s.id!) === 'completed')
      .filter((s) => (s.kind === 'email' ? this.mail : this.rest).callsOf(keyOf(s.id!)) === 0)
      .map((s) => s.id!);
    const refused = subs.filter((s) => s.id === undefined);
    const effectsOfRefused: number[] = [];
    const refusedNotQueued: string[] = [];
    for (const s of refused) {
      if (s.refusedId === undefined) continue;
      if (this.rest.callsOf(keyOf(s.refusedId)) + this.mail.callsOf(keyOf(s.refusedId)) > 0) effectsOfRefused.push(s.refusedId);
      const st = await this.alice.request<{ data: { status: string } }>('GET', `/workflow-executions/${s.refusedId}/status`);
      if (st.status === 200 && st.body.data.status !== 'queued') refusedNotQueued.push(`${s.refusedId}:${st.body.data.status}`);
    }
    const uploads = subs.filter((s) => s.kind === 'upload' && s.id !== undefined);
    const uploadsMissing: number[] = [];
    for (const s of uploads) {
      const res = await this.alice.request('GET', `/documents/${s.id}`);
      if (res.status !== 200) uploadsMissing.push(s.id!);
    }
    // From the request that started it to the execution's completed_at (user-input runs include the pause).
    const latencies = executions.filter((s) => completedAt.has(s.id!)).map((s) => completedAt.get(s.id!)! - s.at);
    const byKind: Record<string, number> = {};
    for (const s of subs.filter((x) => x.id !== undefined)) byKind[s.kind] = (byKind[s.kind] ?? 0) + 1;
    return {
      scenario,
      accepted: executions.length,
      byKind,
      refused: refused.length,
      refusedWithoutRetryAfter: refused.filter((s) => s.status === 503 && !s.retryAfter).length,
      refusedBy: refused.reduce<Record<string, number>>((acc, s) => {
        const k = `${s.kind}:${s.status}${s.status === 503 && !s.retryAfter ? ' (no Retry-After)' : ''}`;
        acc[k] = (acc[k] ?? 0) + 1;
        return acc;
      }, {}),
      terminal,
      notTerminal: [...pending],
      changedAfterTerminal,
      restEffects: rest.effects,
      restRepeats: rest.repeats,
      mailEffects: mail.effects,
      mailRepeats: mail.repeats,
      missingEffects,
      effectsOfRefused,
      refusedNotQueued,
      uploadsAccepted: uploads.length,
      uploadsMissing,
      serverErrors: this.serverErrors,
      serverErrorSamples: [...this.serverErrorSamples],
      dlq: await this.dlqDepths(),
      latencyMs: { p50: percentile(latencies, 50), p99: percentile(latencies, 99) },
      ...extra,
    };
  }

  /** Polls one execution until it pauses for input, then resumes it (gives up after `timeoutMs`; the ledger resumes what is left). */
  async resumeWhenPaused(id: number, timeoutMs = 60000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      await sleep(500);
      const res = await this.alice.request<{ data: { status: string; correlation_token: string | null } }>('GET', `/workflow-executions/${id}/status`).catch(() => undefined);
      if (!res) continue;
      this.noteStatus(res.status, 'GET /status');
      if (res.status !== 200) continue;
      const { status, correlation_token: token } = res.body.data;
      if (status === 'awaiting_user_input' && token) {
        const resumed = await this.alice.request('POST', `/workflow-executions/${id}/resume`, { correlation_token: token, payload: { approved: true } }).catch(() => undefined);
        if (resumed) this.noteStatus(resumed.status, 'POST /resume');
        if (resumed?.status === 200) return;
      } else if (['completed', 'failed', 'cancelled'].includes(status)) return;
    }
  }

  /** Forgets 5xx counts between scenarios (each ledger reports its own). */
  resetErrors(): void {
    this.serverErrors = 0;
    this.serverErrorSamples.length = 0;
  }
}

export class Load {
  readonly submissions: Submission[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private stopped = false;
  private readonly loop: Promise<void>;
  private n = 0;

  constructor(
    private readonly fs: FaultStack,
    private readonly perSecond: number,
    private readonly kinds: LoadKind[],
  ) {
    this.loop = this.run();
  }

  private async run(): Promise<void> {
    const every = 1000 / this.perSecond;
    let next = Date.now();
    while (!this.stopped) {
      const kind = this.kinds[this.n % this.kinds.length]!;
      const n = this.n++;
      const p: Promise<void> = this.fs.submit(kind, n).then(async (s) => {
        this.submissions.push(s);
        // Answer the pause as a user would, a moment after it appears.
        if (s.kind === 'input' && s.id !== undefined) await this.fs.resumeWhenPaused(s.id);
        this.inFlight.delete(p);
      });
      this.inFlight.add(p);
      next += every;
      await sleep(Math.max(0, next - Date.now()));
    }
  }

  /** Stops submitting and waits for the requests under way; returns every submission. */
  async stop(): Promise<Submission[]> {
    this.stopped = true;
    await this.loop;
    await Promise.all([...this.inFlight]);
    return this.submissions;
  }
}

/** Sorted percentile of numbers (0 for none). */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** What every scenario's ledger must show (the promises); returns the broken ones, empty when clean. */
export function brokenPromises(l: Ledger, options: { allowFailed?: boolean; expectedDlq?: Record<string, number> } = {}): string[] {
  const broken: string[] = [];
  if (l.notTerminal.length) broken.push(`${l.notTerminal.length} accepted executions never ended: ${l.notTerminal.slice(0, 10).join(', ')}`);
  if (l.changedAfterTerminal.length) broken.push(`terminal state changed: ${l.changedAfterTerminal.join(', ')}`);
  const completed = l.terminal['completed'] ?? 0;
  if (!options.allowFailed && completed !== l.accepted) broken.push(`${l.accepted - completed} accepted executions did not complete: ${JSON.stringify(l.terminal)}`);
  if (l.missingEffects.length) broken.push(`completed without their effect: ${l.missingEffects.slice(0, 10).join(', ')}`);
  if (l.effectsOfRefused.length) broken.push(`refused starts that still had an effect: ${l.effectsOfRefused.join(', ')}`);
  if (l.refusedNotQueued.length) broken.push(`refused starts that left queued: ${l.refusedNotQueued.join(', ')}`);
  if (l.refusedWithoutRetryAfter) broken.push(`${l.refusedWithoutRetryAfter} 503 answers without Retry-After`);
  if (l.uploadsMissing.length) broken.push(`accepted uploads missing: ${l.uploadsMissing.join(', ')}`);
  if (l.serverErrors) broken.push(`${l.serverErrors} 5xx answers other than 503: ${l.serverErrorSamples.join('; ')}`);
  const expected = options.expectedDlq ?? {};
  for (const [q, depth] of Object.entries(l.dlq)) if (depth !== (expected[q] ?? 0)) broken.push(`${q} holds ${depth}, expected ${expected[q] ?? 0}`);
  return broken;
}

export function report(ledger: Ledger): void {
  process.stdout.write(`LEDGER ${JSON.stringify(ledger)}\n`);
}
