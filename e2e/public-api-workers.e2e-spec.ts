/**
 * The public API as several processes (PUBLIC_API_WORKERS=2): both workers
 * serve the port and consume results, /metrics answers for the cluster, a
 * dead worker is replaced, and SIGTERM stops everything cleanly. (A
 * connection the primary hands to a worker at the moment it dies can be
 * lost: clients retry, as they would with any crashed replica.) Rate limits
 * and the login throttle are counted once for both workers.
 */
import { execFileSync } from 'node:child_process';
import http from 'node:http';
import { eventually, Stack } from './support/stack';
import { definition, edge, endNode, objectSchema, startNode, WorkflowApi } from './support/workflow-api';

jest.setTimeout(120000);

let stack: Stack;

/** The primary's worker processes, from the process table. */
function workerPids(): number[] {
  try {
    return execFileSync('pgrep', ['-P', String(stack.pid('public-api'))], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

/** A GET on a new connection each time, so that the cluster spreads them over the workers; 0 on a network error or after 5 s. */
function getFresh(url: string): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get(url, { agent: false, headers: { connection: 'close' }, timeout: 5000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
  });
}

/** A JSON POST on a new connection (so that the cluster spreads them over the workers); its status, 0 on a network error. */
function postFresh(url: string, body: unknown, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve) => {
    const payload = JSON.stringify(body);
    const req = http.request(
      url,
      { method: 'POST', agent: false, timeout: 5000, headers: { connection: 'close', 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...headers } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
    req.end(payload);
  });
}

function requestCount(metrics: string, route: string): number {
  let n = 0;
  for (const m of metrics.matchAll(/^http_request_duration_seconds_count\{([^}]*)\} (\S+)$/gm)) {
    if (m[1]!.includes(`route="${route}"`)) n += Number(m[2]);
  }
  return n;
}

beforeAll(async () => {
  stack = await Stack.start({ portOffset: 400, env: { PUBLIC_API_WORKERS: '2' } });
});

afterAll(async () => {
  await stack?.stop();
});

describe('public API with PUBLIC_API_WORKERS=2', () => {
  it('runs two workers behind one port', async () => {
    await eventually(async () => (workerPids().length === 2 ? true : undefined), 15000, 'two workers');
  });

  it('counts the requests of every worker in /metrics', async () => {
    const url = `${stack.api}/openapi.json`;
    const before = requestCount(await (await fetch(`${stack.url('public-api')}/metrics`)).text(), '/api/openapi.json');
    for (let i = 0; i < 20; i++) expect(await getFresh(url)).toBe(200);
    const after = requestCount(await (await fetch(`${stack.url('public-api')}/metrics`)).text(), '/api/openapi.json');
    expect(after - before).toBe(20);
  });

  it('runs a workflow to completed (results are consumed by both workers)', async () => {
    const api = await WorkflowApi.login(stack.api, 'alice@docflow.local', 'Alice#Pass123');
    const activity = await api.createActivity({
      name: 'two workers',
      workflow_definition: definition([startNode(), endNode('done', 'Done')], [edge('start', 'done')], objectSchema({ n: { type: 'number' } })),
      status: 'active',
    });
    const runs = await Promise.all(Array.from({ length: 6 }, (_, n) => api.run(activity, { n })));
    expect(runs.map((r) => r.status)).toEqual(Array(6).fill('completed'));
  });

  it("holds a webhook's 100 triggers a minute across both workers (the count is shared in PostgreSQL)", async () => {
    const api = await WorkflowApi.login(stack.api, 'alice@docflow.local', 'Alice#Pass123');
    const activity = await api.createActivity({
      name: 'shared limit',
      workflow_definition: definition([startNode(), endNode('done', 'Done')], [edge('start', 'done')], objectSchema({ n: { type: 'number' } })),
      status: 'active',
    });
    const hook = await api.expect<{ data: { id: number; secret_key: string } }>(201, 'POST', '/webhooks', { activity });
    // Inputs the schema refuses: every call counts, none starts a run. A new connection each time, so both workers answer.
    const url = `${stack.api}/webhooks/trigger/${hook.data.id}`;
    const statuses: number[] = [];
    for (let i = 0; i < 102; i++) statuses.push(await postFresh(url, { n: 'not a number' }, { 'x-webhook-secret': hook.data.secret_key }));
    expect(statuses.slice(0, 100)).toEqual(Array(100).fill(400));
    expect(statuses.slice(100)).toEqual([429, 429]);
  });

  it('holds the login throttle across both workers', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push(await postFresh(`${stack.api}/auth/local`, { identifier: 'mallory@nowhere.test', password: 'guess-' + i }));
    expect(statuses).toEqual([400, 400, 400, 400, 400, 429, 429]);
  });

  it('replaces a worker that dies', async () => {
    const [victim] = workerPids();
    expect(victim).toBeDefined();
    process.kill(victim!, 'SIGKILL');
    await eventually(
      async () => {
        const pids = workerPids();
        return pids.length === 2 && !pids.includes(victim!) ? pids : undefined;
      },
      15000,
      'a new worker',
    );
    // Connections are spread over both workers again, the new one included.
    await eventually(async () => ((await getFresh(`${stack.url('public-api')}/_health`)) === 204 ? true : undefined), 15000, 'healthy');
    for (let i = 0; i < 6; i++) expect(await getFresh(`${stack.url('public-api')}/_health`)).toBe(204);
  });

  it('stops every worker and exits 0 on SIGTERM', async () => {
    const pids = workerPids();
    expect(await stack.stopService('public-api', 'SIGTERM', 30000)).toBe(0);
    for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow();
  });
});
