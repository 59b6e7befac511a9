// npm run test:faults: builds, runs the fault suite (jest project `faults`, one file at a time), then prints
// each scenario's ledger and `N passed, N failed`. Not part of `npm test`: it kills services and floods queues.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const build = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'build.mjs')], { cwd: ROOT, stdio: 'inherit' });
if (build.status !== 0) {
  process.stdout.write('0 passed, 1 failed (build)\n');
  process.exit(1);
}
mkdirSync(path.join(ROOT, '.tmp'), { recursive: true });
const outputFile = path.join(ROOT, '.tmp', 'faults-results.json');
const jest = spawnSync(
  process.execPath,
  [path.join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js'), '--selectProjects', 'faults', '--runInBand', '--verbose', '--forceExit', '--json', '--outputFile', outputFile, ...process.argv.slice(2)],
  { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8', env: { ...process.env, NODE_ENV: 'test' } },
);
const ledgers = (jest.stdout ?? '').split('\n').filter((line) => line.startsWith('LEDGER '));
let passed = 0;
let failed = 1;
try {
  const results = JSON.parse(readFileSync(outputFile, 'utf8'));
  passed = results.numPassedTests;
  failed = results.numFailedTests + (results.numRuntimeErrorTestSuites ?? 0);
  for (const suite of results.testResults) for (const t of suite.assertionResults) process.stdout.write(`${{ passed: 'PASS', pending: 'SKIP', skipped: 'SKIP' }[t.status] ?? 'FAIL'} ${t.title}\n`);
} catch {
  process.stdout.write('the fault suite did not report results\n');
}
for (const line of ledgers) process.stdout.write(`${line}\n`);
process.stdout.write(`${passed} passed, ${failed} failed\n`);
process.exit(failed === 0 && jest.status === 0 ? 0 : 1);
