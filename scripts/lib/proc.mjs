// Small process helpers shared by the start, test and user-create scripts.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './env.mjs';

export function makeReporter(tag) {
  return {
    log: (msg) => process.stdout.write(`[${tag}] ${msg}\n`),
    warn: (msg) => process.stderr.write(`[${tag}] warning: ${msg}\n`),
    error: (msg) => process.stderr.write(`[${tag}] error: ${msg}\n`),
  };
}

export function formatDuration(ms) {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 120000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60000)} min ${Math.round((ms % 60000) / 1000)} s`;
}

/**
 * Runs a command with inherited stdio (unless given) and resolves its exit
 * code (a death by signal is reported as 1). With `timeoutMs` the command
 * runs in its own process group, killed whole after that long; `onSpawn`
 * receives the child (to forward signals).
 */
export function run(cmd, args, { env = process.env, cwd = ROOT, stdio = 'inherit', timeoutMs, onSpawn } = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd, env, stdio, detached: timeoutMs !== undefined });
    onSpawn?.(child);
    let timer;
    if (timeoutMs !== undefined) {
      timer = setTimeout(() => {
        process.stderr.write(`${cmd} ${args.join(' ')}: no result after ${formatDuration(timeoutMs)}; killing it\n`);
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          /* already gone */
        }
      }, timeoutMs);
    }
    child.on('error', (err) => {
      clearTimeout(timer);
      process.stderr.write(`cannot run ${cmd}: ${err.message}\n`);
      resolve(127);
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

function readJson(file) {
  return JSON.parse(readFileSync(file, 'utf8'));
}

/**
 * Why node_modules needs an install, or undefined when it matches
 * package-lock.json. Quick path: the hidden lockfile npm writes into
 * node_modules is at least as new as package-lock.json. Otherwise compare
 * versions, since npm writes the two files a few milliseconds apart.
 */
export function staleDependencies() {
  const nm = path.join(ROOT, 'node_modules');
  const lockFile = path.join(ROOT, 'package-lock.json');
  const hiddenFile = path.join(nm, '.package-lock.json');
  if (!existsSync(nm)) return 'node_modules is missing';
  if (!existsSync(lockFile)) return 'package-lock.json is missing';
  if (!existsSync(hiddenFile)) return 'node_modules has no record of its install';
  const pkg = readJson(path.join(ROOT, 'package.json'));
  const lock = readJson(lockFile);
  const root = lock.packages?.[''] ?? {};
  const declared = { ...pkg.dependencies, ...pkg.devDependencies };
  const locked = { ...root.dependencies, ...root.devDependencies };
  for (const [name, range] of Object.entries(declared)) {
    if (locked[name] !== range) return `package.json lists ${name}@${range}, package-lock.json does not`;
  }
  if (statSync(hiddenFile).mtimeMs >= statSync(lockFile).mtimeMs) return undefined;
  const installed = readJson(hiddenFile).packages ?? {};
  for (const [key, entry] of Object.entries(lock.packages ?? {})) {
    if (!key.startsWith('node_modules/')) continue;
    const have = installed[key];
    if (!have) {
      if (entry.optional || entry.devOptional || entry.peer) continue;
      return `${key.slice('node_modules/'.length)} is not installed`;
    }
    if (entry.version && have.version !== entry.version) return `${key.slice('node_modules/'.length)} is ${have.version}, package-lock.json wants ${entry.version}`;
  }
  return undefined;
}

/** Installs npm packages when node_modules is missing or out of date. Returns false on failure. */
export async function ensureNodeModules(reporter, env = process.env) {
  const reason = staleDependencies();
  if (!reason) return true;
  const fresh = !existsSync(path.join(ROOT, 'node_modules')) && existsSync(path.join(ROOT, 'package-lock.json'));
  const args = fresh ? ['ci', '--no-audit', '--no-fund'] : ['install', '--no-audit', '--no-fund'];
  reporter.log(`${reason}: running npm ${args.join(' ')}`);
  const code = await run('npm', args, { env });
  if (code !== 0) reporter.error(`npm ${args[0]} failed (exit ${code})`);
  return code === 0;
}

/** Runs scripts/install-system-deps.sh when present (LibreOffice, tesseract); a failure is only a warning. */
export async function installSystemDeps(reporter, env = process.env) {
  const script = path.join(ROOT, 'scripts', 'install-system-deps.sh');
  if (!existsSync(script)) return;
  const code = await run('bash', [script], { env });
  if (code !== 0) reporter.warn(`scripts/install-system-deps.sh failed (exit ${code}); document conversion and OCR may be unavailable`);
}
