import { type ChildProcess, execFile, spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../../..');

export interface LlmServiceProcess {
  url: string;
  /** Everything the process wrote, for failure messages. */
  output(): string;
  stop(): Promise<void>;
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

/**
 * Builds the LLM service (under a lock, other test runs build it too) and
 * runs `node dist/apps/llm-service/main.js` as a process with no provider
 * configured, so its built-in local engine answers. Resolves once it logs
 * that it listens.
 */
export async function startBuiltLlmService(serviceKey: string, timeoutMs = 30000): Promise<LlmServiceProcess> {
  await run('flock', ['/tmp/docflow-build-llm-service.lock', 'node', 'scripts/build.mjs', 'llm-service'], { cwd: ROOT, timeout: timeoutMs });
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [path.join(ROOT, 'dist/apps/llm-service/main.js')], {
    cwd: ROOT,
    // Only what the service needs: no LLM_PROVIDER_* leaks in from the developer's environment.
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'test',
      HOST: '127.0.0.1',
      LLM_SERVICE_PORT: String(port),
      SERVICE_KEY: serviceKey,
      INTERNAL_SERVICE_JWT_SECRET: 'test-internal-jwt-secret-0123456789',
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`llm-service did not start within ${timeoutMs} ms:\n${output}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (/"message":"listening"/.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`llm-service exited with ${code} before listening:\n${output}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    output: () => output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10000);
      await exited;
      clearTimeout(timer);
    },
  };
}
