import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { detectNetworkIsolation, resolveExecutable, sandboxed } from './sandbox';

const LIMITS = { cpuSeconds: 7, addressSpaceBytes: 512 * 1024 * 1024, fileSizeBytes: 4 * 1024 * 1024 };

describe('sandboxed', () => {
  let home: string;
  let server: net.Server;
  let port: number;

  beforeAll(async () => {
    home = mkdtempSync(path.join(os.tmpdir(), 'docflow-sandbox-'));
    server = net.createServer((socket) => socket.end('hello'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as net.AddressInfo).port;
  });

  afterAll(async () => {
    rmSync(home, { recursive: true, force: true });
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  function run(script: string, network?: 'none'): string {
    const bash = resolveExecutable('bash')!;
    const cmd = sandboxed({ command: bash, args: ['-c', script], home, limits: LIMITS, ...(network ? { network } : {}) });
    // The child works in its private home, so a file a test writes never lands in the checkout.
    const out = spawnSync(cmd.command, cmd.args, { cwd: home, env: cmd.env, encoding: 'utf8', timeout: 20000 });
    return `${out.stdout}${out.stderr}`;
  }

  it('passes on no variable of this process: a secret in the environment is not visible to the child', () => {
    process.env.SANDBOX_SPEC_SECRET = 'jwt-secret-that-must-not-leak-0123';
    try {
      const env = run('env');
      expect(env).not.toContain('jwt-secret-that-must-not-leak-0123');
      expect(env).not.toContain('SANDBOX_SPEC_SECRET');
      expect(env).toContain(`HOME=${home}`);
      expect(
        env
          .split('\n')
          .filter(Boolean)
          .map((l) => l.split('=')[0])
          .sort(),
      ).toEqual(expect.arrayContaining(['HOME', 'LANG', 'LC_ALL', 'PATH', 'TMPDIR']));
    } finally {
      delete process.env.SANDBOX_SPEC_SECRET;
    }
  });

  it('applies the CPU, address-space and file-size limits', () => {
    // bash reports -t in seconds, -v in KiB and -f in 1024-byte blocks.
    expect(run('ulimit -t; ulimit -v; ulimit -f').trim().split('\n')).toEqual(['7', String(512 * 1024), String(4 * 1024)]);
    expect(run(`head -c ${8 * 1024 * 1024} /dev/zero > big.bin; echo "exit=$?"; stat -c %s big.bin`)).toMatch(/exit=153[\s\S]*4194304/);
  });

  it('cuts the child off the network when the host allows a namespace, which it detects', () => {
    expect(detectNetworkIsolation()).not.toBe('none');
    const probe = `(exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected) 2>/dev/null || echo blocked`;
    expect(run(probe).trim()).toBe('blocked');
    // The same probe without the namespace reaches the server: the test can tell the two apart.
    expect(run(probe, 'none').trim()).toBe('connected');
  });

  it('finds executables on the safe PATH and refuses missing ones', () => {
    expect(resolveExecutable('sh')).toMatch(/^\/.*\/sh$/);
    expect(resolveExecutable('no-such-tool-docflow')).toBeUndefined();
    expect(resolveExecutable(path.join(home, 'nothing-here'))).toBeUndefined();
  });
});
