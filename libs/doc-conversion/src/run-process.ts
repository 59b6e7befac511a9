import { spawn } from 'node:child_process';
import { ConversionTimeoutError, ConverterUnavailableError } from './errors';

export interface RunResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** The last bytes of stdout and stderr together. */
  output: string;
}

export interface RunOptions {
  timeoutMs: number;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Told the child's pid (= its process group id) once it runs. */
  onSpawn?: (pid: number) => void;
}

const OUTPUT_TAIL_BYTES = 8 * 1024;
/** After the leader exits, how long stdio may stay open (held by an escaped grandchild) before we stop waiting. */
const PIPE_GRACE_MS = 2000;

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // ESRCH: the group is already gone.
  }
}

/**
 * Runs a command in a process group of its own, never blocking the event
 * loop. On timeout the whole group (soffice, oosplash, soffice.bin) is
 * SIGKILLed and ConversionTimeoutError is thrown once the leader has exited;
 * after a normal exit any straggler in the group is killed too.
 */
export function runInProcessGroup(command: string, args: string[], options: RunOptions): Promise<RunResult> {
  return new Promise<RunResult>((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let tail = Buffer.alloc(0);
    const keep = (chunk: Buffer): void => {
      tail = Buffer.concat([tail, chunk]);
      if (tail.length > OUTPUT_TAIL_BYTES) tail = tail.subarray(tail.length - OUTPUT_TAIL_BYTES);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);

    let timedOut = false;
    let settled = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, options.timeoutMs);

    const finish = (exitCode: number | null, signal: NodeJS.Signals | null): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      killGroup(child.pid);
      child.stdout.destroy();
      child.stderr.destroy();
      if (timedOut) reject(new ConversionTimeoutError(options.timeoutMs, child.pid));
      else resolve({ exitCode, signal, output: tail.toString('utf8') });
    };

    child.once('spawn', () => {
      if (child.pid !== undefined) options.onSpawn?.(child.pid);
    });
    child.once('error', (err: NodeJS.ErrnoException) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      killGroup(child.pid);
      if (err.code === 'ENOENT') reject(new ConverterUnavailableError(`${command} is not installed (run scripts/install-system-deps.sh)`));
      else reject(err);
    });
    // 'close' waits for stdio too (so output is complete); a grandchild that
    // escaped the group could hold the pipes open, so 'exit' starts a grace timer.
    child.once('close', (code, signal) => finish(code, signal));
    child.once('exit', (code, signal) => {
      setTimeout(() => finish(code, signal), PIPE_GRACE_MS).unref();
    });
  });
}
