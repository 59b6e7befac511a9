// Shared by `npm run bench` and `npm run soak`: build dist/ unless BENCH_SKIP_BUILD=true
// reuses it, then bundle a TypeScript entry (the @docflow/* libs inlined, packages
// left to node_modules) and run it with NODE_ENV=test.
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './env.mjs';

/** Builds the services into dist/ unless BENCH_SKIP_BUILD=true and a build exists; exits on failure. */
export function buildUnlessSkipped() {
  if (existsSync(path.join(ROOT, 'dist', 'apps', 'public-api', 'main.js')) && process.env.BENCH_SKIP_BUILD === 'true') return;
  const r = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'build.mjs')], { stdio: 'inherit', cwd: ROOT });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

/**
 * Bundles `entry` to `outfile` and runs it; answers its exit status. Keep
 * `outfile` two levels under the root, like the sources it bundles (their
 * paths to dist/ are relative to __dirname).
 */
export async function bundleAndRun(entry, outfile) {
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    tsconfig: path.join(ROOT, 'tsconfig.base.json'),
    plugins: [
      {
        name: 'externals',
        setup(b) {
          b.onResolve({ filter: /^[^./]/ }, (args) => (args.path.startsWith('@docflow/') ? undefined : { path: args.path, external: true }));
        },
      },
    ],
    logLevel: 'warning',
  });
  return spawnSync(process.execPath, [outfile], { stdio: 'inherit', cwd: ROOT, env: { ...process.env, NODE_ENV: 'test' } }).status ?? 1;
}
