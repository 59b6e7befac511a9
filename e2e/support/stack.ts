import { ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createTestDatabase, createTestVhost, TestDatabase, TestVhost } from '@docflow/testing';

export const SERVICES = ['public-api', 'router', 'llm-service', 'data-shield', 'workflow-processor', 'extraction-processor'] as const;
export type ServiceName = (typeof SERVICES)[number];

const ROOT = path.resolve(__dirname, '..', '..');

/** Ports of their own, so an end-to-end run never meets a developer's `npm start`. */
const PORT_BASE: Record<ServiceName, number> = {
  'public-api': 21337,
  router: 21010,
  'llm-service': 21020,
  'data-shield': 21030,
  'workflow-processor': 21040,
  'extraction-processor': 21050,
};

const PORT_VAR: Record<ServiceName, string> = {
  'public-api': 'PUBLIC_API_PORT',
  router: 'ROUTER_PORT',
  'llm-service': 'LLM_SERVICE_PORT',
  'data-shield': 'DATA_SHIELD_PORT',
  'workflow-processor': 'WORKFLOW_PROCESSOR_PORT',
  'extraction-processor': 'EXTRACTION_PROCESSOR_PORT',
};

export interface StackOptions {
  /** Offset added to every port, for suites that run stacks side by side. */
  portOffset?: number;
  env?: Record<string, string>;
}

/** Node's V8 semi-space limit when NODE_MAX_SEMI_SPACE_MB is not set: the default of `npm start` (scripts/lib/node-flags.mjs). */
const DEFAULT_MAX_SEMI_SPACE_MB = 64;

/**
 * The V8 heap flags every service process starts with, as `npm start` gives them (scripts/lib/node-flags.mjs):
 * NODE_MAX_SEMI_SPACE_MB from the stack's options, else this process's environment; 0 leaves V8's default.
 */
export function serviceNodeFlags(raw: string | undefined): string[] {
  const mb = raw === undefined || raw === '' ? DEFAULT_MAX_SEMI_SPACE_MB : Number(raw);
  if (!Number.isInteger(mb) || mb < 0 || mb > 1024) throw new Error(`NODE_MAX_SEMI_SPACE_MB must be an integer from 0 to 1024 (got ${raw})`);
  return [`--max-semi-space-size=${mb}`]; // 0 is V8's own default for the flag
}

export class Stack {
  private readonly children = new Map<ServiceName, ChildProcess>();
  readonly ports: Record<ServiceName, number>;
  /** Node flags of every service process (serviceNodeFlags). */
  readonly nodeFlags: string[];
  readonly env: Record<string, string>;
  readonly workDir: string;

  private constructor(
    readonly db: TestDatabase,
    readonly vhost: TestVhost,
    options: StackOptions,
  ) {
    // E2E_PORT_SHIFT moves every stack of a run, so that checkouts side by side can run end-to-end tests at once.
    const offset = (options.portOffset ?? 0) + (Number(process.env.E2E_PORT_SHIFT) || 0);
    this.nodeFlags = serviceNodeFlags(options.env?.['NODE_MAX_SEMI_SPACE_MB'] ?? process.env['NODE_MAX_SEMI_SPACE_MB']);
    this.ports = Object.fromEntries(SERVICES.map((s) => [s, PORT_BASE[s] + offset])) as Record<ServiceName, number>;
    this.workDir = mkdtempSync(path.join(tmpdir(), 'docflow-e2e-'));
    const url = (s: ServiceName) => `http://127.0.0.1:${this.ports[s]}`;
    this.env = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/root',
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
      HOST: '127.0.0.1',
      DATABASE_URL: db.url,
      AMQP_URL: vhost.url,
      JWT_SECRET: 'e2e-jwt-secret-0123456789abcdef0123456789',
      INTERNAL_SERVICE_JWT_SECRET: 'e2e-internal-secret-0123456789abcdef012345',
      SERVICE_KEY: 'e2e-service-key-0123456789abcdef0123456789',
      ROUTER_API_KEY: 'e2e-router-key-0123456789abcdef0123456789',
      CREDENTIALS_MASTER_KEY: 'a'.repeat(64),
      SEED_DEMO_USERS: 'true',
      STORAGE_DIR: path.join(this.workDir, 'storage'),
      OUTBOX_DIR: path.join(this.workDir, 'outbox'),
      PUBLIC_BASE_URL: url('public-api'),
      ROUTER_URL: url('router'),
      LLM_SERVICE_URL: url('llm-service'),
      DATA_SHIELD_URL: url('data-shield'),
      PUBLIC_API_INTERNAL_URL: url('public-api'),
      SHUTDOWN_TIMEOUT_MS: '10000',
      ...Object.fromEntries(SERVICES.map((s) => [PORT_VAR[s], String(this.ports[s])])),
      ...(options.env ?? {}),
    };
  }

  static async start(options: StackOptions = {}): Promise<Stack> {
    if (!existsSync(path.join(ROOT, 'dist', 'apps', 'public-api', 'main.js'))) {
      throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
    }
    const [db, vhost] = await Promise.all([createTestDatabase('docflow_e2e'), createTestVhost('docflow_e2e')]);
    const stack = new Stack(db, vhost, options);
    // The public API migrates and seeds first (it listens once done; healthy only when the router and LLM service are); the others follow.
    stack.spawn('public-api');
    await stack.waitForListening('public-api', 60000);
    for (const s of SERVICES) if (s !== 'public-api') stack.spawn(s);
    await Promise.all(SERVICES.map((s) => stack.waitForHealth(s, 204, 60000)));
    return stack;
  }

  url(service: ServiceName): string {
    return `http://127.0.0.1:${this.ports[service]}`;
  }

  get api(): string {
    return `${this.url('public-api')}/api`;
  }

  spawn(service: ServiceName): ChildProcess {
    const logDir = path.join(ROOT, '.tmp', 'e2e-logs');
    mkdirSync(logDir, { recursive: true });
    const log = createWriteStream(path.join(logDir, `${service}.log`), { flags: 'a' });
    const child = spawn(process.execPath, [...this.nodeFlags, path.join(ROOT, 'dist', 'apps', service, 'main.js')], {
      cwd: this.workDir,
      env: this.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.pipe(log);
    child.stderr?.pipe(log);
    this.children.set(service, child);
    return child;
  }

  /** The process id of a running service (the primary, for a multi-process public API). */
  pid(service: ServiceName): number | undefined {
    return this.children.get(service)?.pid;
  }

  async health(service: ServiceName): Promise<number> {
    try {
      const res = await fetch(`${this.url(service)}/_health`, { signal: AbortSignal.timeout(3000) });
      return res.status;
    } catch {
      return 0;
    }
  }

  /** Until the service answers /_health at all (204, or 503 while a service it calls is not up yet). */
  async waitForListening(service: ServiceName, timeoutMs = 30000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if ((await this.health(service)) !== 0) return;
      const child = this.children.get(service);
      if (child && child.exitCode !== null) throw new Error(`${service} exited with code ${child.exitCode}; see .tmp/e2e-logs/${service}.log`);
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`${service} did not answer /_health within ${timeoutMs} ms`);
  }

  async waitForHealth(service: ServiceName, status: number, timeoutMs = 30000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let last = 0;
    while (Date.now() < deadline) {
      last = await this.health(service);
      if (last === status) return;
      const child = this.children.get(service);
      if (status !== 0 && child && child.exitCode !== null) {
        throw new Error(`${service} exited with code ${child.exitCode}; see .tmp/e2e-logs/${service}.log`);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`${service} /_health did not answer ${status} within ${timeoutMs} ms (last: ${last})`);
  }

  /** Sends a signal and waits for the process to exit; resolves with its exit code (null when killed). */
  async stopService(service: ServiceName, signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 20000): Promise<number | null> {
    const child = this.children.get(service);
    if (!child || child.exitCode !== null || child.signalCode !== null) return child?.exitCode ?? null;
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    const code = await exited;
    clearTimeout(timer);
    this.children.delete(service);
    return code;
  }

  async restart(service: ServiceName): Promise<void> {
    await this.stopService(service);
    this.spawn(service);
    await this.waitForHealth(service, 204, 60000);
  }

  async stop(): Promise<void> {
    await Promise.all([...this.children.keys()].map((s) => this.stopService(s)));
    await Promise.all([this.db.drop(), this.vhost.drop()]);
  }
}

/** Logs in through the public API and returns the JWT. */
export async function login(stack: Stack, identifier: string, password: string): Promise<string> {
  const res = await fetch(`${stack.api}/auth/local`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ identifier, password }),
  });
  if (res.status !== 200) throw new Error(`login as ${identifier} answered ${res.status}: ${await res.text()}`);
  const body = (await res.json()) as { jwt: string };
  return body.jwt;
}

/** Polls `fn` until it returns a value other than undefined, or fails after timeoutMs. */
export async function eventually<T>(fn: () => Promise<T | undefined>, timeoutMs = 15000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await fn();
      if (v !== undefined) return v;
    } catch (err) {
      lastError = err;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}${lastError ? `: ${String(lastError)}` : ''}`);
}
