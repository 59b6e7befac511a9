#!/usr/bin/env node
// npm run bench [name...]: bundles each bench/<name>.bench.ts with esbuild and
// runs it; every benchmark prints a table and writes JSON under bench/results/.
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const all = readdirSync(path.join(root, 'bench'))
  .filter((f) => f.endsWith('.bench.ts'))
  .map((f) => f.replace(/\.bench\.ts$/, ''));
const wanted = process.argv.slice(2).length ? process.argv.slice(2) : all;

if (!existsSync(path.join(root, 'dist', 'apps', 'public-api', 'main.js')) || process.env.BENCH_SKIP_BUILD !== 'true') {
  const r = spawnSync(process.execPath, [path.join(root, 'scripts', 'build.mjs')], { stdio: 'inherit', cwd: root });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

let failed = 0;
for (const name of wanted) {
  const outfile = path.join(root, '.tmp', 'bench', `${name}.js`);
  await build({
    entryPoints: [path.join(root, 'bench', `${name}.bench.ts`)],
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
  console.log(`\n=== bench: ${name} ===`);
  const r = spawnSync(process.execPath, [outfile], { stdio: 'inherit', cwd: root, env: { ...process.env, NODE_ENV: 'test' } });
  if (r.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
