/**
 * The fault suite (issue #15 item 1; `npm run test:faults`, never part of `npm test`): the built stack with
 * three workflow-processor replicas under a steady load of REST + decision workflows, faults injected while
 * it runs, then a ledger: every accepted execution reaches exactly one terminal state, every REST side effect
 * happened once per idempotency key at the loopback sink, and no request got a 500.
 */
import amqp from 'amqplib';
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import path from 'node:path';
import { HttpTarget } from '@docflow/testing';
import { queueDepth } from '../e2e/support/rabbit';
import { eventually, Stack } from '../e2e/support/stack';
import { definition, edge, endNode, objectSchema, startNode, taskNode, TERMINAL, WorkflowApi } from '../e2e/support/workflow-api';

jest.setTimeout(600000);

const ROOT = path.resolve(__dirname, '..');
const EXTRA_REPLICAS = 2;

let stack: Stack;
/** The idempotent sink: calls per Idempotency-Key; the effect is the first call of each key. */
let sink: HttpTarget;
const effects = new Map<string, number>();
let alice: WorkflowApi;
let activityId: number;
const replicas: ChildProcess[] = [];
let serverErrors = 0;

interface Ledger {
  scenario: string;
  accepted: number;
  terminal: Record<string, number>;
  notTerminal: number[];
  sinkCalls: number;
  effects: number;
  /** Calls repeated with a key already seen (absorbed by the sink's idempotency; redeliveries after a kill). */
  repeatedCalls: number;
  completedWithoutEffect: number;
  serverErrors: number;
  [extra: string]: unknown;
}

function spawnReplica(index: number): ChildProcess {
  const port = stack.ports['workflow-processor'] + index;
  const log = createWriteStream(path.join(ROOT, '.tmp', 'e2e-logs', `workflow-processor-${index}.log`), { flags: 'a' });
  const child = spawn(process.execPath, [path.join(ROOT, 'dist', 'apps', 'workflow-processor', 'main.js')], {
    cwd: stack.workDir,
    env: { ...stack.env, WORKFLOW_PROCESSOR_PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  return child;
}

async function killReplica(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGKILL');
  await exited;
}

/** The sink's route for one execution: an effect only for the first call with a key (what an idempotent API does), slowly, so kills land mid-call. */
function sinkFor(id: number): void {
  sink.on(`POST /sink/${id}`, async (hit) => {
    const key = String(hit.headers['idempotency-key']);
    // Calls per key; the effect itself happens once per key, on the first call.
    effects.set(key, (effects.get(key) ?? 0) + 1);
    await new Promise((r) => setTimeout(r, 150));
    return { body: { ok: true, key } };
  });
}

/** Starts one execution; counts 5xx answers (the ledger wants none). Returns its id, or undefined when refused. */
async function startOne(n: number): Promise<number | undefined> {
  const created = await alice.request<{ data: { id: number } }>('POST', '/workflow-executions', { data: { activity: activityId, inputs: { amount: n % 2 === 0 ? 900 : 50 } } });
  if (created.status >= 500) serverErrors += created.status === 503 ? 0 : 1;
  if (created.status !== 201) return undefined;
  sinkFor(created.body.data.id);
  const started = await alice.request('POST', `/workflow-executions/${created.body.data.id}/execute`, {});
  if (started.status >= 500 && started.status !== 503) serverErrors += 1;
  return started.status === 200 ? created.body.data.id : undefined;
}

async function ledgerOf(scenario: string, ids: number[], extra: Record<string, unknown> = {}): Promise<Ledger> {
  const terminal: Record<string, number> = {};
  const notTerminal: number[] = [];
  let completedWithoutEffect = 0;
  for (const id of ids) {
    let status: string;
    try {
      status = (await alice.waitFor(id, { until: TERMINAL, timeoutMs: 120000, pollMs: 250 })).status;
    } catch {
      notTerminal.push(id);
      continue;
    }
    terminal[status] = (terminal[status] ?? 0) + 1;
    if (status === 'completed' && !effects.has(`exec-${id}`)) completedWithoutEffect += 1;
  }
  const mine = [...effects.entries()].filter(([key]) => ids.includes(Number(key.slice(5))));
  return {
    scenario,
    accepted: ids.length,
    terminal,
    notTerminal,
    sinkCalls: ids.reduce((sum, id) => sum + sink.hitsOf(`/sink/${id}`).length, 0),
    effects: mine.length,
    repeatedCalls: mine.reduce((sum, [, calls]) => sum + calls - 1, 0),
    completedWithoutEffect,
    serverErrors,
    ...extra,
  };
}

function report(ledger: Ledger): void {
  process.stdout.write(`LEDGER ${JSON.stringify(ledger)}\n`);
}

function expectClean(ledger: Ledger): void {
  expect(ledger.notTerminal).toEqual([]);
  expect(ledger.terminal['completed']).toBe(ledger.accepted);
  expect(ledger.completedWithoutEffect).toBe(0);
  // One effect per completed execution, none for any other.
  expect(ledger.effects).toBe(ledger.accepted);
  expect(ledger.serverErrors).toBe(0);
}

beforeAll(async () => {
  sink = await HttpTarget.start('127.0.0.1');
  mkdirSync(path.join(ROOT, '.tmp', 'e2e-logs'), { recursive: true });
  stack = await Stack.start({ portOffset: 800, env: { REST_API_ALLOWED_HOSTS: sink.hostPort, MAX_RUNNING_EXECUTIONS_PER_USER: '100' } });
  for (let i = 1; i <= EXTRA_REPLICAS; i += 1) replicas[i] = spawnReplica(i);
  alice = await WorkflowApi.login(stack.api, 'alice@docflow.local', 'Alice#Pass123');
  const def = definition(
    [
      startNode(),
      taskNode('check', 'decision', { operator: '>', left_operand: '$.amount', right_operand: 500, true_label: 'big', false_label: 'small' }),
      taskNode('big', 'rest_api_task', { url: sink.url('/sink/{{execution_id}}'), method: 'POST', headers: { 'Idempotency-Key': 'exec-{{execution_id}}' }, body: { size: 'big' } }),
      taskNode('small', 'rest_api_task', { url: sink.url('/sink/{{execution_id}}'), method: 'POST', headers: { 'Idempotency-Key': 'exec-{{execution_id}}' }, body: { size: 'small' } }),
      endNode(),
    ],
    [edge('start', 'check'), edge('check', 'big', 'big'), edge('check', 'small', 'small'), edge('big', 'end'), edge('small', 'end')],
    objectSchema({ amount: { type: 'number' } }),
  );
  activityId = await alice.createActivity({ name: 'fault load', workflow_definition: def });
});

afterAll(async () => {
  await Promise.all(replicas.filter(Boolean).map((c) => killReplica(c)));
  await stack?.stop();
  await sink?.stop();
});

describe('fault suite: workflow processors (3 replicas)', () => {
  it('SIGKILL of a workflow processor mid-run, repeatedly: nothing accepted is lost or done twice', async () => {
    const ids: number[] = [];
    let kills = 0;
    // Steady load: 8 waves of 5 starts; after waves 2, 4 and 6 one replica is SIGKILLed mid-run and a new one started.
    for (let wave = 0; wave < 8; wave += 1) {
      const started = await Promise.all(Array.from({ length: 5 }, (_, i) => startOne(wave * 5 + i)));
      ids.push(...started.filter((id): id is number => id !== undefined));
      if (wave % 2 === 1 && wave < 7) {
        await sink.waitForHits(`/sink/${ids[ids.length - 1]}`, 1, 15000).catch(() => undefined);
        const index = 1 + (kills % EXTRA_REPLICAS);
        await killReplica(replicas[index]!);
        kills += 1;
        replicas[index] = spawnReplica(index);
      }
    }
    const ledger = await ledgerOf('sigkill-workflow-processor', ids, { kills });
    report(ledger);
    expect(ledger.accepted).toBe(40);
    expectClean(ledger);
  });

  it('a malformed and a wrongly shaped message on workflow_queue go to its dead-letter queue, and the queue keeps flowing', async () => {
    const before = await queueDepth(stack.vhost.url, 'workflow_queue.dlq');
    const conn = await amqp.connect(stack.vhost.url);
    try {
      const ch = await conn.createConfirmChannel();
      ch.sendToQueue('workflow_queue', Buffer.from('{not json'), { persistent: true, contentType: 'application/json' });
      ch.sendToQueue('workflow_queue', Buffer.from(JSON.stringify({ kind: 'job', job_id: 42 })), { persistent: true, contentType: 'application/json' });
      await ch.waitForConfirms();
      await ch.close();
    } finally {
      await conn.close();
    }
    const dlq = await eventually(
      async () => {
        const depth = await queueDepth(stack.vhost.url, 'workflow_queue.dlq');
        return depth >= before + 2 ? depth : undefined;
      },
      30000,
      'both messages in workflow_queue.dlq',
    );
    const ids = (await Promise.all(Array.from({ length: 5 }, (_, i) => startOne(i)))).filter((id): id is number => id !== undefined);
    const ledger = await ledgerOf('poison-and-malformed-on-workflow_queue', ids, { dlqDepth: dlq });
    report(ledger);
    expect(dlq - before).toBe(2);
    expectClean(ledger);
  });
});
