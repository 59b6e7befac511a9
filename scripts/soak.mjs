#!/usr/bin/env node
// npm run soak: builds (unless BENCH_SKIP_BUILD=true), bundles faults/soak.ts with esbuild like the
// benchmarks and runs it: SOAK_MINUTES (default 10) of mixed load on 3 workflow processors, 2 routers
// and 2 public API workers, a random processor SIGKILLed every 30 s. Exit code 0 when the soak passes.
import path from 'node:path';
import { bundleAndRun, buildUnlessSkipped } from './lib/bundle.mjs';
import { ROOT } from './lib/env.mjs';

buildUnlessSkipped();
process.exit(await bundleAndRun(path.join(ROOT, 'faults', 'soak.ts'), path.join(ROOT, '.tmp', 'soak', 'soak.js')));
