#!/usr/bin/env node
// npm run bench [name...]: bundles each bench/<name>.bench.ts with esbuild and
// runs it; every benchmark prints a table and writes JSON under bench/results/.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { bundleAndRun, buildUnlessSkipped } from './lib/bundle.mjs';
import { ROOT as root } from './lib/env.mjs';

const all = readdirSync(path.join(root, 'bench'))
  .filter((f) => f.endsWith('.bench.ts'))
  .map((f) => f.replace(/\.bench\.ts$/, ''));
const wanted = process.argv.slice(2).length ? process.argv.slice(2) : all;

buildUnlessSkipped();

let failed = 0;
for (const name of wanted) {
  console.log(`\n=== bench: ${name} ===`);
  if ((await bundleAndRun(path.join(root, 'bench', `${name}.bench.ts`), path.join(root, '.tmp', 'bench', `${name}.js`))) !== 0) failed++;
}
process.exit(failed ? 1 : 0);
