#!/usr/bin/env node
// `npm run user:create -- --email E --username U --password P [--super-admin]`:
// the same environment as `npm start` (.env, defaults), a build of the public
// API when its CLI is missing or older than the sources, then the CLI itself.
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { prepareRuntimeEnv, ROOT } from './lib/env.mjs';
import { ensureNodeModules, run } from './lib/proc.mjs';

// Our own messages go to stderr: stdout belongs to the CLI.
const reporter = {
  log: (msg) => process.stderr.write(`[user:create] ${msg}\n`),
  warn: (msg) => process.stderr.write(`[user:create] warning: ${msg}\n`),
  error: (msg) => process.stderr.write(`[user:create] error: ${msg}\n`),
};

const source = path.join(ROOT, 'apps', 'public-api', 'src', 'cli', 'user-create.ts');
const cli = path.join(ROOT, 'dist', 'apps', 'public-api', 'cli', 'user-create.js');

/** Newest modification time of any file under `dir` (0 when absent). */
function newestMtime(dir) {
  if (!existsSync(dir)) return 0;
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(full));
    else if (entry.isFile()) newest = Math.max(newest, statSync(full).mtimeMs);
  }
  return newest;
}

function sourcesNewerThan(file) {
  const built = statSync(file).mtimeMs;
  const dirs = [path.join(ROOT, 'apps', 'public-api', 'src'), ...readdirSync(path.join(ROOT, 'libs')).map((l) => path.join(ROOT, 'libs', l, 'src'))];
  return dirs.some((d) => newestMtime(d) > built);
}

if (!existsSync(source)) {
  reporter.error('apps/public-api/src/cli/user-create.ts does not exist yet in this build');
  process.exit(1);
}
if (!(await ensureNodeModules(reporter))) process.exit(1);
const env = prepareRuntimeEnv(reporter);
if (!existsSync(cli) || sourcesNewerThan(cli)) {
  reporter.log('building public-api');
  const code = await run(process.execPath, ['scripts/build.mjs', 'public-api'], { stdio: ['ignore', process.stderr, 'inherit'] });
  if (code !== 0) {
    reporter.error('build failed');
    process.exit(1);
  }
}
process.exit(await run(process.execPath, ['--enable-source-maps', cli, ...process.argv.slice(2)], { env }));
