/**
 * Insecure defaults (issue #13): no service starts without its secrets, in
 * any environment, and the internal services listen on loopback unless
 * BIND_HOST opens them, while the public API keeps HOST. And one correlation
 * id follows a request from the public API through the router to the
 * workflow processor.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { SERVICES, type ServiceName, Stack } from './support/stack';
import { chain, definition, endNode, startNode, WorkflowApi } from './support/workflow-api';

jest.setTimeout(120000);

const ROOT = path.resolve(__dirname, '..');

const SECRETS_OF: Record<ServiceName, string[]> = {
  'public-api': ['JWT_SECRET', 'SERVICE_KEY', 'INTERNAL_SERVICE_JWT_SECRET', 'ROUTER_API_KEY', 'CREDENTIALS_MASTER_KEY'],
  router: ['ROUTER_API_KEY'],
  'llm-service': ['SERVICE_KEY', 'INTERNAL_SERVICE_JWT_SECRET'],
  'data-shield': ['SERVICE_KEY', 'INTERNAL_SERVICE_JWT_SECRET'],
  'workflow-processor': ['SERVICE_KEY', 'INTERNAL_SERVICE_JWT_SECRET'],
  'extraction-processor': ['SERVICE_KEY', 'INTERNAL_SERVICE_JWT_SECRET'],
};

/** Runs a built service with only PATH and NODE_ENV; resolves with its exit code and stderr. */
function runBare(service: ServiceName, nodeEnv: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'dist', 'apps', service, 'main.js')], {
      cwd: os.tmpdir(),
      env: { PATH: process.env.PATH ?? '', NODE_ENV: nodeEnv, DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none', AMQP_URL: 'amqp://guest:guest@127.0.0.1:1' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const guard = setTimeout(() => child.kill('SIGKILL'), 60000);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(guard);
      resolve({ code, stderr });
    });
  });
}

/** Whether a TCP connection to host:port is accepted. */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    socket.setTimeout(3000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(false));
  });
}

function externalAddress(): string | undefined {
  return Object.values(os.networkInterfaces())
    .flat()
    .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
}

describe('a service without its secrets', () => {
  it.each(SERVICES.flatMap((s) => ['development', 'test'].map((env) => [s, env] as const)))('%s refuses to start (NODE_ENV=%s), naming each missing secret', async (service, env) => {
    const { code, stderr } = await runBare(service, env);
    expect(code).toBe(78);
    const line = JSON.parse(stderr.trim().split('\n').pop()!) as { message: string; problems: string[] };
    expect(line.message).toBe('invalid configuration');
    for (const name of SECRETS_OF[service]) expect(line.problems).toContainEqual(expect.stringMatching(new RegExp(`^${name}: is not set`)));
  });
});

describe('where the services listen', () => {
  let stack: Stack;
  const external = externalAddress();

  beforeAll(async () => {
    // HOST is the public API's only: the internal services keep loopback without BIND_HOST.
    stack = await Stack.start({ portOffset: 700, env: { HOST: '0.0.0.0' } });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('has a non-loopback address to try', () => {
    expect(external).toBeDefined();
  });

  it('serves the public API on HOST and every internal service on loopback only', async () => {
    expect(await accepts(external!, stack.ports['public-api'])).toBe(true);
    for (const service of SERVICES.filter((s) => s !== 'public-api')) {
      expect([service, await accepts('127.0.0.1', stack.ports[service])]).toEqual([service, true]);
      expect([service, await accepts(external!, stack.ports[service])]).toEqual([service, false]);
    }
  });

  it('carries the caller’s correlation id from the public API through the router to the processor', async () => {
    const alice = await WorkflowApi.login(stack.api, 'alice@docflow.local', 'Alice#Pass123');
    const activity = await alice.createActivity({ name: 'correlated', workflow_definition: definition([startNode(), endNode()], chain('start', 'end')) });
    const id = await alice.createExecution(activity, {});
    const correlationId = `e2e-corr-${randomUUID()}`;
    const started = await alice.request('POST', `/workflow-executions/${id}/execute`, {}, { 'x-correlation-id': correlationId });
    expect(started.status).toBe(200);
    expect((await alice.waitFor(id)).status).toBe('completed');
    const logged = (service: ServiceName) =>
      readFileSync(path.join(ROOT, '.tmp', 'e2e-logs', `${service}.log`), 'utf8')
        .split('\n')
        .filter((line) => line.includes(correlationId))
        .map((line) => (JSON.parse(line) as { message: string }).message);
    expect(logged('router')).toContain('job queued');
    expect(logged('workflow-processor').length).toBeGreaterThan(0);
  });
});
