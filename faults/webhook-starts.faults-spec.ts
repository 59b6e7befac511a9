/**
 * Webhook triggers accepted before their start (docs/decisions.md, "Webhook triggers accepted before their
 * start"; issue #16 item 6): a 200 means the execution is committed and will start, though its start follows
 * the answer in the same process. This scenario SIGKILLs the public API while triggers are answered at a high
 * rate, at a moment when answered executions are still waiting for their start, twice, restarting it each
 * time; then it checks that every accepted trigger's execution completed exactly once (one terminal state, one
 * call at the REST sink per execution's Idempotency-Key, no repeat), and that no execution was left behind,
 * including those whose trigger was committed but whose answer the kill cut off.
 *
 * Unlike platform-faults, it restarts neither RabbitMQ nor PostgreSQL and mounts nothing (run it alone with
 * `npx jest --selectProjects faults --runInBand --forceExit faults/webhook-starts.faults-spec.ts` after
 * `node scripts/build.mjs`, or through `npm run test:faults`).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { eventually } from '../e2e/support/stack';
import { brokenPromises, FaultStack, report, sleep, type Submission } from './support/fault-stack';

jest.setTimeout(600000);

/** Concurrent trigger loops: enough that answered executions wait for their start at any moment. */
const CLIENTS = 12;
const KILLS = 2;
/** The public API's log (Stack.spawn appends to it), read for the sweep's resubmissions. */
const API_LOG = path.resolve(__dirname, '..', '.tmp', 'e2e-logs', 'public-api.log');

let fs: FaultStack;
let db: Client;

beforeAll(async () => {
  fs = await FaultStack.start({
    portOffset: 900,
    workflowReplicas: 2,
    env: { WEBHOOK_TRIGGERS_PER_MINUTE: '1000000', WEBHOOK_MAX_RUNNING_EXECUTIONS_PER_USER: '100000' },
  });
  fs.sinkDelayMs = 0;
  db = new Client({ connectionString: fs.stack.db.url });
  await db.connect();
});

afterAll(async () => {
  await db?.end().catch(() => undefined);
  await fs?.stop();
});

async function pendingStarts(): Promise<number[]> {
  const rows = (await db.query<{ id: number }>("SELECT id FROM workflow_executions WHERE status = 'queued' AND start_pending ORDER BY id")).rows;
  return rows.map((r) => Number(r.id));
}

/** CLIENTS loops posting triggers back to back (a short pause after a refused connection) until stopped. */
function triggerLoad(): { stop: () => Promise<Submission[]> } {
  const subs: Submission[] = [];
  let stopped = false;
  let n = 0;
  const loops = Array.from({ length: CLIENTS }, async () => {
    while (!stopped) {
      const s = await fs.submit('webhook', n++);
      subs.push(s);
      if (s.status === 0) await sleep(100);
    }
  });
  return {
    stop: async () => {
      stopped = true;
      await Promise.all(loops);
      return subs;
    },
  };
}

describe('webhook starts', () => {
  it('SIGKILL of the public API between webhook answers and their starts, twice: every accepted trigger’s execution completes exactly once', async () => {
    fs.resetErrors();
    const logFrom = existsSync(API_LOG) ? statSync(API_LOG).size : 0;
    const load = triggerLoad();
    const orphans: number[] = [];
    const kills: { pendingBefore: number; pendingAfter: number }[] = [];
    let subs: Submission[] = [];
    try {
      for (let k = 0; k < KILLS; k += 1) {
        await sleep(3000);
        // Kill at a moment when answered executions wait for their start.
        const before = await eventually(
          async () => {
            const ids = await pendingStarts();
            return ids.length >= 3 ? ids : undefined;
          },
          60000,
          'executions accepted and not yet started',
        );
        await fs.stack.stopService('public-api', 'SIGKILL');
        const after = await pendingStarts();
        orphans.push(...after);
        kills.push({ pendingBefore: before.length, pendingAfter: after.length });
        fs.stack.spawn('public-api');
        await fs.stack.waitForHealth('public-api', 204, 120000);
      }
      await sleep(3000);
    } finally {
      subs = await load.stop();
    }

    // The ledger drives every accepted execution to its end (the sweep starts the orphans after 30 s).
    const ledger = await fs.ledger('sigkill-public-api-between-webhook-answer-and-start', subs, { kills, orphans: orphans.length }, 300000);
    const accepted = subs.filter((s) => s.id !== undefined).map((s) => s.id!);
    const repeated = accepted.filter((id) => fs.rest.callsOf(`exec-${id}`) !== 1);
    // Every execution the triggers created, answered or not (a kill can cut off the answer of a committed trigger), ends completed.
    const left = await eventually(
      async () => {
        const rows = (await db.query<{ status: string; n: number }>('SELECT status, count(*)::int AS n FROM workflow_executions GROUP BY status')).rows;
        return rows.every((r) => r.status === 'completed') ? rows : undefined;
      },
      120000,
      'every execution completed',
    ).catch(async () => (await db.query<{ status: string; n: number }>('SELECT status, count(*)::int AS n FROM workflow_executions GROUP BY status')).rows);
    // One execution per committed trigger at most: no more than the triggers sent, no fewer than those answered.
    const created = left.reduce((sum, r) => sum + r.n, 0);
    // Jobs the sweep submitted again (a kill between a start's commit and its router call): reported, not required.
    const resubmitted = readFileSync(API_LOG).subarray(logFrom).toString('utf8').split('its job submitted again').length - 1;
    report({
      ...ledger,
      resubmitted,
      triggersSent: subs.length,
      executionsCreated: created,
      executionsByStatus: Object.fromEntries(left.map((r) => [r.status, r.n])),
      notExactlyOnce: repeated.length,
    });

    expect(brokenPromises(ledger)).toEqual([]);
    expect(accepted.length).toBeGreaterThan(100);
    expect(new Set(accepted).size).toBe(accepted.length);
    expect(repeated).toEqual([]);
    expect(created).toBeGreaterThanOrEqual(accepted.length);
    expect(created).toBeLessThanOrEqual(subs.length);
    expect(left.filter((r) => r.status !== 'completed')).toEqual([]);
    // The kills did land between answers and starts.
    expect(orphans.length).toBeGreaterThan(0);
  });
});
