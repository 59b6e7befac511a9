// Runs one of the public API's CLIs (apps/public-api/src/cli/<name>.ts) in the
// environment of `npm start` (.env, defaults), building the public API first
// when the CLI is missing or older than the sources. Used by user:create and
// credentials:rotate-key.
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { prepareRuntimeEnv, ROOT } from './env.mjs';
import { ensureNodeModules, run } from './proc.mjs';

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

/** Exit code of the CLI `name`; our own messages go to stderr, since stdout belongs to the CLI. */
export async function runPublicApiCli(name, args) {
  const reporter = {
    log: (msg) => process.stderr.write(`[${name}] ${msg}\n`),
    warn: (msg) => process.stderr.write(`[${name}] warning: ${msg}\n`),
    error: (msg) => process.stderr.write(`[${name}] error: ${msg}\n`),
  };
  const source = path.join(ROOT, 'apps', 'public-api', 'src', 'cli', `${name}.ts`);
  const cli = path.join(ROOT, 'dist', 'apps', 'public-api', 'cli', `${name}.js`);
  if (!existsSync(source)) {
    reporter.error(`apps/public-api/src/cli/${name}.ts does not exist yet in this build`);
    return 1;
  }
  if (!(await ensureNodeModules(reporter))) return 1;
  const env = prepareRuntimeEnv(reporter);
  if (!existsSync(cli) || sourcesNewerThan(cli)) {
    reporter.log('building public-api');
    const code = await run(process.execPath, ['scripts/build.mjs', 'public-api'], { stdio: ['ignore', process.stderr, 'inherit'] });
    if (code !== 0) {
      reporter.error('build failed');
      return 1;
    }
  }
  return run(process.execPath, ['--enable-source-maps', cli, ...args], { env });
}
