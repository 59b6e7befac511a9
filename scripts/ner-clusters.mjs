#!/usr/bin/env node
// npm run ner:clusters [-- options]: builds the word-cluster table of the
// named-entity tagger (see libs/ner/src/train/clusters-main.ts).
import path from 'node:path';
import { bundleAndRun } from './lib/bundle.mjs';
import { ROOT } from './lib/env.mjs';

process.exit(
  await bundleAndRun(path.join(ROOT, 'libs', 'ner', 'src', 'train', 'clusters-main.ts'), path.join(ROOT, '.tmp', 'ner-clusters', 'main.js'), process.argv.slice(2), ['--max-old-space-size=8192']),
);
