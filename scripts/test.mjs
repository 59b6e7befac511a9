#!/usr/bin/env node
// `npm test`: lint, typecheck, unit, integration, build, end-to-end, against
// the machine's PostgreSQL and RabbitMQ. Every step runs even when an earlier
// one failed (except e2e after a failed build), then a summary table and,
// alone on the last line, "<N> passed, <M> failed[, <K> skipped]".
//
// `npm test -- unit integration` runs only the named steps (e2e implies build).
// Test processes never see `.env` nor the developer's `docflow` database:
// DATABASE_URL and AMQP_URL point at a database and a vhost of this run,
// removed at the end; test files create their own on top (libs/testing).
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { redactUrl, ROOT } from './lib/env.mjs';
import { canConnect, dropDatabase } from './lib/infra.mjs';
import { ensureNodeModules, formatDuration, installSystemDeps, makeReporter, run } from './lib/proc.mjs';

const reporter = makeReporter('test');
const { log, warn, error } = reporter;
const STEP_TIMEOUT_MS = Number(process.env.TEST_STEP_TIMEOUT_MS) || 30 * 60 * 1000;
const OUT_DIR = path.join(ROOT, '.tmp', 'test-results');
const STEP_NAMES = ['lint', 'typecheck', 'unit', 'integration', 'build', 'e2e'];

const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
for (const w of wanted) {
  if (!STEP_NAMES.includes(w)) {
    error(`unknown step "${w}"; steps: ${STEP_NAMES.join(', ')}`);
    process.exit(2);
  }
}
const selected = new Set(wanted.length ? wanted : STEP_NAMES);
if (selected.has('e2e')) selected.add('build');

// ---- environment of the test processes
const runId = `${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
const adminUrl = new URL(process.env.TEST_DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
const runDbUrl = new URL(adminUrl);
runDbUrl.pathname = `/docflow_test_run_${runId}`;
const amqpBase = (process.env.TEST_AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672').replace(/\/$/, '');
const vhost = `docflow_test_run_${runId}`;
const runDir = path.join(ROOT, '.tmp', `test-run-${runId}`);

const env = {
  ...process.env,
  NODE_ENV: 'test',
  NX_DAEMON: 'false',
  NX_NO_CLOUD: 'true',
  DATABASE_URL: runDbUrl.toString(),
  AMQP_URL: `${amqpBase}/${encodeURIComponent(vhost)}`,
  STORAGE_DIR: path.join(runDir, 'storage'),
  SEED_DEMO_USERS: 'false',
};
if (process.env.CI) env.FORCE_COLOR = '0';
const ci = Boolean(process.env.CI);

// ---- interruption: forward to the running step, clean up, exit 130
let current;
let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    if (interrupted) return;
    interrupted = true;
    warn(`${signal} received: stopping the current step`);
    if (current) {
      try {
        process.kill(-current.pid, 'SIGTERM');
      } catch {
        /* gone */
      }
    }
  });
}

// ---- steps
const results = [];

async function step(name, label, fn) {
  const index = results.length + 1;
  process.stdout.write(`\n==> [${index}] ${name}: ${label}\n`);
  const started = Date.now();
  const outcome = interrupted ? { status: 'skipped', note: 'interrupted' } : await fn();
  const ms = Date.now() - started;
  const result = { name, ms, ...outcome };
  results.push(result);
  process.stdout.write(`<== ${name}: ${result.status} in ${formatDuration(ms)}${result.note ? ` (${result.note})` : ''}\n`);
  return result;
}

function skip(name, note) {
  results.push({ name, status: 'skipped', ms: 0, note });
  process.stdout.write(`\n--- ${name}: skipped (${note})\n`);
}

const exec = (cmd, args) => run(cmd, args, { env, timeoutMs: STEP_TIMEOUT_MS, onSpawn: (c) => (current = c) });

async function command(cmd, args) {
  const code = await exec(cmd, args);
  return { status: code === 0 ? 'ok' : 'FAILED', note: code === 0 ? undefined : `exit ${code}` };
}

// --forceExit: a test that leaks a handle must not hang the run until the step
// timeout; jest still prints its "did not exit" warning, so the leak stays visible.
async function jest(project, extra = []) {
  const outputFile = path.join(OUT_DIR, `${project}.json`);
  rmSync(outputFile, { force: true });
  const args = [
    path.join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js'),
    '--selectProjects',
    project,
    '--passWithNoTests',
    '--no-watchman',
    '--json',
    '--outputFile',
    outputFile,
    '--forceExit',
    ...extra,
  ];
  if (ci) args.push('--ci');
  const code = await exec(process.execPath, args);
  if (!existsSync(outputFile)) return { status: 'FAILED', note: `jest exited ${code} without results` };
  const r = JSON.parse(readFileSync(outputFile, 'utf8'));
  // A file that fails to load has no tests: count it as one failed test so the totals show it.
  const broken = r.numRuntimeErrorTestSuites ?? 0;
  const tests = { passed: r.numPassedTests ?? 0, failed: (r.numFailedTests ?? 0) + broken, skipped: (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0) };
  const notes = [];
  if ((r.numTotalTestSuites ?? 0) === 0) {
    notes.push(`no ${project} test files`);
    log(`note: the ${project} project has no test files yet; nothing ran`);
  }
  if (broken) notes.push(`${broken} test file(s) failed to run`);
  if (code !== 0 && !notes.length) notes.push(`exit ${code}`);
  return { status: code === 0 && r.success !== false ? 'ok' : 'FAILED', note: notes.join('; ') || undefined, tests };
}

const started = Date.now();
mkdirSync(OUT_DIR, { recursive: true });

if (!(await ensureNodeModules(reporter))) {
  error('cannot install npm packages; no test ran');
  process.stdout.write('0 passed, 1 failed\n');
  process.exit(1);
}
await installSystemDeps(reporter);

const pgUp = await canConnect(adminUrl.hostname, Number(adminUrl.port) || 5432);
const amqp = new URL(amqpBase);
const rabbitUp = await canConnect(amqp.hostname, Number(amqp.port) || 5672);
if (!pgUp) warn(`PostgreSQL does not answer at ${adminUrl.host}: integration and e2e tests will fail (.ci/run starts it)`);
if (!rabbitUp) warn(`RabbitMQ does not answer at ${amqp.host}: integration and e2e tests will fail (.ci/run starts it)`);
let vhostCreated = false;
if (rabbitUp) {
  try {
    const sh = promisify(execFile);
    await sh('rabbitmqctl', ['-q', 'add_vhost', vhost]);
    vhostCreated = true;
    await sh('rabbitmqctl', ['-q', 'set_permissions', '-p', vhost, amqp.username || 'guest', '.*', '.*', '.*']);
  } catch (err) {
    warn(`cannot create the run's RabbitMQ vhost with rabbitmqctl: ${err.message.split('\n')[0]}`);
  }
}
log(`run ${runId}: NODE_ENV=test, DATABASE_URL=${redactUrl(env.DATABASE_URL)}, AMQP_URL=${redactUrl(env.AMQP_URL)}`);

if (selected.has('lint')) await step('lint', 'npm run lint', () => command('npm', ['run', 'lint']));
if (selected.has('typecheck')) await step('typecheck', 'npm run typecheck', () => command('npm', ['run', 'typecheck']));
if (selected.has('unit')) await step('unit', 'jest --selectProjects unit', () => jest('unit'));
if (selected.has('integration')) await step('integration', 'jest --selectProjects integration --runInBand', () => jest('integration', ['--runInBand']));
let built = true;
if (selected.has('build')) built = (await step('build', 'node scripts/build.mjs', () => command(process.execPath, ['scripts/build.mjs']))).status === 'ok';
if (selected.has('e2e')) {
  if (built) await step('e2e', 'jest --selectProjects e2e --runInBand', () => jest('e2e', ['--runInBand']));
  else skip('e2e', interrupted ? 'interrupted' : 'the build failed; end-to-end tests run the built services');
}

// ---- clean up what this run created
try {
  if (pgUp) await dropDatabase(env.DATABASE_URL);
} catch (err) {
  warn(`cannot drop ${redactUrl(env.DATABASE_URL)}: ${err.message}`);
}
if (vhostCreated) await promisify(execFile)('rabbitmqctl', ['-q', 'delete_vhost', vhost]).catch((err) => warn(`cannot delete vhost ${vhost}: ${err.message.split('\n')[0]}`));
rmSync(runDir, { recursive: true, force: true });

// ---- summary
const totals = { passed: 0, failed: 0, skipped: 0 };
const rows = results.map((r) => {
  if (r.tests) for (const k of Object.keys(totals)) totals[k] += r.tests[k];
  // A failed step without tests (lint, typecheck, build) counts as one failure, so the last line never hides it.
  else if (r.status === 'FAILED') totals.failed += 1;
  const t = r.tests;
  const tests = t ? [`${t.passed} passed`, `${t.failed} failed`, ...(t.skipped ? [`${t.skipped} skipped`] : [])].join(', ') : '';
  return [r.name, r.status, r.status === 'skipped' ? '-' : formatDuration(r.ms), tests, r.note ?? ''];
});
const header = ['step', 'result', 'time', 'tests', 'note'];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
const line = (cells) =>
  cells
    .map((c, i) => c.padEnd(widths[i]))
    .join('  ')
    .trimEnd();
const failedSteps = results.filter((r) => r.status === 'FAILED').map((r) => r.name);
process.stdout.write(`\n${line(header)}\n${line(widths.map((w) => '-'.repeat(w)))}\n${rows.map(line).join('\n')}\n\n`);
process.stdout.write(`${failedSteps.length ? `failed steps: ${failedSteps.join(', ')}` : 'all steps passed'}${interrupted ? ' (interrupted)' : ''}; total ${formatDuration(Date.now() - started)}\n`);
process.stdout.write(`${totals.passed} passed, ${totals.failed} failed${totals.skipped ? `, ${totals.skipped} skipped` : ''}\n`);
process.exitCode = interrupted ? 130 : failedSteps.length ? 1 : 0;
