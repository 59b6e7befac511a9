#!/usr/bin/env node
// Bundles each app's own code (its libs included) into dist/apps/<app>/ with
// esbuild; npm packages stay external and load from node_modules. Type
// checking is a separate step (`npm run typecheck`), so a build takes seconds.
import { transform } from '@swc/core';
import { build } from 'esbuild';
import { copyFileSync, existsSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const allApps = readdirSync(path.join(root, 'apps')).filter((a) => existsSync(path.join(root, 'apps', a, 'src', 'main.ts')));
const requested = process.argv.slice(2);
const apps = (requested.length ? requested : allApps).filter((a) => a !== 'console');
// The web console is a browser app (Vite), served by the public API: it is built with it.
const withConsole = requested.length === 0 || requested.includes('console') || requested.includes('public-api');

async function buildConsole() {
  const { build: viteBuild } = await import('vite');
  await viteBuild({ configFile: path.join(root, 'apps', 'console', 'vite.config.mts'), logLevel: 'warn' });
}

const workspaceLibs = {
  name: 'workspace-libs',
  setup(b) {
    // Everything that is not a relative path or one of our libs is an npm package: keep it external.
    b.onResolve({ filter: /^[^./]/ }, (args) => (args.path.startsWith('@docflow/') ? undefined : { path: args.path, external: true }));
  },
};

// esbuild cannot emit decorator metadata, which TypeORM and class-transformer
// read; swc compiles each TypeScript file the same way the tests do.
const swcDecorators = {
  name: 'swc-decorators',
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      const out = await transform(source, {
        filename: args.path,
        sourceMaps: 'inline',
        jsc: {
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
          target: 'es2022',
          keepClassNames: true,
        },
        module: { type: 'es6' },
      });
      return { contents: out.code, loader: 'js', resolveDir: path.dirname(args.path) };
    });
  },
};

function entriesOf(app) {
  const src = path.join(root, 'apps', app, 'src');
  const entries = { main: path.join(src, 'main.ts') };
  const cli = path.join(src, 'cli');
  if (existsSync(cli)) {
    for (const f of readdirSync(cli).filter((f) => f.endsWith('.ts') && !f.endsWith('.spec.ts'))) {
      entries[`cli/${f.replace(/\.ts$/, '')}`] = path.join(cli, f);
    }
  }
  return entries;
}

// The named-entity model (libs/ner) is data, not code: an app whose bundle
// includes that lib gets the file next to its main.js, where the lib looks first.
const nerModel = path.join(root, 'libs', 'ner', 'model', 'ner-model.json.gz');
function copyAssets(app, metafile) {
  const nerSrc = path.join(root, 'libs', 'ner', 'src') + path.sep;
  const usesNer = Object.keys(metafile.inputs).some((f) => path.resolve(f).startsWith(nerSrc));
  if (usesNer) copyFileSync(nerModel, path.join(root, 'dist', 'apps', app, path.basename(nerModel)));
}

const started = Date.now();
await Promise.all([
  ...(withConsole ? [buildConsole()] : []),
  ...apps.map(async (app) => {
    const result = await build({
      entryPoints: entriesOf(app),
      outdir: path.join(root, 'dist', 'apps', app),
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      sourcemap: true,
      tsconfig: path.join(root, 'tsconfig.base.json'),
      plugins: [workspaceLibs, swcDecorators],
      logLevel: 'warning',
      keepNames: true,
      metafile: true,
    });
    copyAssets(app, result.metafile);
  }),
]);
console.log(`built ${[...apps, ...(withConsole ? ['console'] : [])].join(', ')} in ${Date.now() - started} ms`);
