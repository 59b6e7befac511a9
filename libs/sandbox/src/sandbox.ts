import { spawnSync } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';

/**
 * How LibreOffice and tesseract run on untrusted documents (issue #13): a
 * scrubbed environment (no secret of the service reaches them), no network
 * (a network namespace of their own, `unshare -n`, where the host allows it),
 * a private home and temp folder, and resource limits (CPU seconds, address
 * space, file size) set by prlimit, or by the shell's ulimit without it.
 * The command is exec'd by the wrappers, so its pid stays the process group
 * leader the callers kill on timeout.
 */

export interface SandboxLimits {
  /** RLIMIT_CPU: CPU seconds before the kernel kills the process. */
  cpuSeconds: number;
  /** RLIMIT_AS: virtual memory, in bytes. */
  addressSpaceBytes: number;
  /** RLIMIT_FSIZE: the largest file the process may write, in bytes. */
  fileSizeBytes: number;
}

/** `unshare`: a network namespace as root; `unshare-user`: inside a user namespace too; `none`: the host gives neither. */
export type NetworkIsolation = 'unshare' | 'unshare-user' | 'none';

export interface SandboxSpec {
  /** The executable, resolved with resolveExecutable first. */
  command: string;
  args: string[];
  /** Private folder: the child's HOME (and TMPDIR unless tmpDir is given). */
  home: string;
  tmpDir?: string;
  /** Variables the tool needs (e.g. SAL_USE_VCLPLUGIN); nothing else of this process is passed on. */
  env?: Record<string, string>;
  limits: SandboxLimits;
  /** Defaults to what the host allows (detectNetworkIsolation). */
  network?: NetworkIsolation;
}

export interface SandboxedCommand {
  command: string;
  args: string[];
  env: Record<string, string>;
  network: NetworkIsolation;
}

const SAFE_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

let detectedNetwork: NetworkIsolation | undefined;
let detectedPrlimit: boolean | undefined;

function succeeds(command: string, args: string[]): boolean {
  try {
    return spawnSync(command, args, { stdio: 'ignore', timeout: 5000, env: { PATH: SAFE_PATH } }).status === 0;
  } catch {
    return false;
  }
}

/** Whether the host lets us give a child a network namespace of its own; tried once per process. */
export function detectNetworkIsolation(): NetworkIsolation {
  detectedNetwork ??= succeeds('unshare', ['-n', 'true']) ? 'unshare' : succeeds('unshare', ['-r', '-n', 'true']) ? 'unshare-user' : 'none';
  return detectedNetwork;
}

function hasPrlimit(): boolean {
  detectedPrlimit ??= succeeds('prlimit', ['--version']);
  return detectedPrlimit;
}

function isExecutableFile(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * The absolute path of `command` (a path, or a name looked up in `searchPath`),
 * or undefined when there is no such executable: the wrappers would otherwise
 * start and report a missing tool as an exit code.
 */
export function resolveExecutable(command: string, searchPath = process.env.PATH ?? SAFE_PATH): string | undefined {
  if (command.includes('/')) return isExecutableFile(command) ? path.resolve(command) : undefined;
  for (const dir of searchPath.split(':')) {
    if (dir === '') continue;
    const candidate = path.join(dir, command);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

/** The invocation that runs spec.command inside the sandbox; spawn it with `detached: true` and the env given. */
export function sandboxed(spec: SandboxSpec, searchPath = SAFE_PATH): SandboxedCommand {
  const network = spec.network ?? detectNetworkIsolation();
  const env: Record<string, string> = {
    PATH: searchPath,
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
    HOME: spec.home,
    TMPDIR: spec.tmpDir ?? spec.home,
    ...spec.env,
  };
  const { cpuSeconds, addressSpaceBytes, fileSizeBytes } = spec.limits;
  const limited: string[] = hasPrlimit()
    ? ['prlimit', `--cpu=${cpuSeconds}`, `--as=${addressSpaceBytes}`, `--fsize=${fileSizeBytes}`, '--', spec.command, ...spec.args]
    : [
        'sh',
        '-c',
        // POSIX ulimit: -v in KiB, -f in 512-byte blocks.
        `ulimit -t ${cpuSeconds} && ulimit -v ${Math.floor(addressSpaceBytes / 1024)} && ulimit -f ${Math.floor(fileSizeBytes / 512)} && exec "$0" "$@"`,
        spec.command,
        ...spec.args,
      ];
  const isolated = network === 'unshare' ? ['unshare', '-n', '--', ...limited] : network === 'unshare-user' ? ['unshare', '-r', '-n', '--', ...limited] : limited;
  return { command: isolated[0]!, args: isolated.slice(1), env, network };
}
