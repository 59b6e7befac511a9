#!/usr/bin/env node
// npm run soak: builds (unless BENCH_SKIP_BUILD=true), bundles faults/soak.ts with esbuild like the
// benchmarks and runs it: SOAK_MINUTES (default 10) of mixed load on 3 workflow processors, 2 routers
// and 2 public API workers, a random processor SIGKILLed every 30 s. Exit code 0 when the soak passes.
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
if (!existsSync(path.join(root, 'dist', 'apps', 'public-api', 'main.js')) || process.env.BENCH_SKIP_BUILD !== 'true') {
  const r = spawnSync(process.execPath, [path.join(root, 'scripts', 'build.mjs')], { stdio: 'inherit', cwd: root });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
// Two levels under the root, like the sources it bundles (their paths to dist/ are relative to __dirname).
const outfile = path.join(root, '.tmp', 'soak', 'soak.js');
await build({
  entryPoints: [path.join(root, 'faults', 'soak.ts')],
  outfile,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  tsconfig: path.join(root, 'tsconfig.base.json'),
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
const r = spawnSync(process.execPath, [outfile], { stdio: 'inherit', cwd: root, env: { ...process.env, NODE_ENV: 'test' } });
process.exit(r.status ?? 1);
