#!/usr/bin/env node
// npm run train:ner [-- options]: bundles libs/ner/src/train/main.ts with esbuild
// (data packages stay external) and runs it. See that file for the options.
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outfile = path.join(root, '.tmp', 'train-ner', 'main.js');
await build({
  entryPoints: [path.join(root, 'libs', 'ner', 'src', 'train', 'main.ts')],
  outfile,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  tsconfig: path.join(root, 'tsconfig.base.json'),
  packages: 'external',
  logLevel: 'warning',
});
const r = spawnSync(process.execPath, ['--max-old-space-size=6144', '--max-semi-space-size=64', outfile, ...process.argv.slice(2)], { stdio: 'inherit', cwd: root });
process.exit(r.status ?? 1);
