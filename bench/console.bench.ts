// The web console's performance budget (issue 17), measured in Debian's
// Chromium through playwright-core against the six services:
//   - initial JavaScript: the scripts index.html loads before any route
//     (entry and modulepreloads), gzipped at level 6 as a server would send
//     them; also the CSS and the Executions route's chunks (the first page
//     after sign-in);
//   - first contentful paint of the sign-in page and the time from navigation
//     to the first rows of the executions list, on loopback with a cold cache
//     (a new browser context per run), for a user with 10 executions and one
//     with BENCH_EXECUTIONS (default 10,000);
//   - the 10,000-row list while it scrolls from top to bottom: frame times
//     (p50/p95/max of requestAnimationFrame intervals) and the most rows the
//     DOM held at once (virtualised: only what is on screen).
// BENCH_RUNS (default 5) runs per figure; the medians are printed.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { Client } from 'pg';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../e2e/support/browser';
import { login, Stack } from '../e2e/support/stack';
import { definition, edge, endNode, objectSchema, startNode, WorkflowApi } from '../e2e/support/workflow-api';
import { percentile, report } from './support';

const ROOT = path.resolve(__dirname, '..', '..');
const CONSOLE = path.join(ROOT, 'dist', 'apps', 'console');
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const BIG = Number(process.env.BENCH_EXECUTIONS ?? 10000);

const kb = (bytes: number) => +(bytes / 1024).toFixed(1);
const gz = (file: string) => gzipSync(readFileSync(path.join(CONSOLE, file)), { level: 6 }).length;
const median = (xs: number[]) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    50,
  );

/** The page's globals, as the probes below set them (this file is compiled without the DOM's types). */
interface ProbeGlobals {
  __firstRows?: number;
  document: { querySelectorAll: (s: string) => { length: number; forEach: (f: (e: { querySelector: (s: string) => unknown }) => void) => void } };
}
// Predicates are self-contained functions, sent over the DevTools protocol: a string predicate would be eval'd in the page, which its CSP forbids.
const hasFirstRows = () => (globalThis as unknown as ProbeGlobals).__firstRows !== undefined;
const rowsFilled = () => {
  const rows = (globalThis as unknown as ProbeGlobals).document.querySelectorAll('[data-testid="execution-row"]');
  let filled = rows.length > 0;
  rows.forEach((r) => {
    if (!r.querySelector('a')) filled = false;
  });
  return filled;
};

/** The files index.html loads before the app runs, and the chunks of the first route after sign-in. */
function bundleSizes(): Record<string, string | number>[] {
  const html = readFileSync(path.join(CONSOLE, 'index.html'), 'utf8');
  const initial = [...html.matchAll(/<(?:script[^>]*\bsrc|link[^>]*rel="modulepreload"[^>]*\bhref)="\/([^"]+\.js)"/g)].map((m) => m[1]!);
  const css = [...html.matchAll(/<link[^>]*rel="stylesheet"[^>]*href="\/([^"]+)"/g)].map((m) => m[1]!);
  const entry = readFileSync(path.join(CONSOLE, initial[0]!), 'utf8');
  const executionsChunk = /["`]\.\/(Executions-[\w-]+\.js)["`]/.exec(entry)?.[1];
  const routeChunks = executionsChunk ? [`assets/${executionsChunk}`] : [];
  const sum = (files: string[]) => files.reduce((n, f) => n + gz(f), 0);
  const raw = (files: string[]) => files.reduce((n, f) => n + readFileSync(path.join(CONSOLE, f)).length, 0);
  return [
    { figure: 'initial JS, gzipped (KB)', value: kb(sum(initial)), budget: '≤ 300', note: `${initial.length} file(s), ${kb(raw(initial))} KB raw` },
    { figure: 'initial CSS, gzipped (KB)', value: kb(sum(css)), budget: '—', note: '' },
    { figure: 'Executions route chunk, gzipped (KB)', value: kb(sum(routeChunks)), budget: '—', note: 'loaded after sign-in' },
  ];
}

/** Seeds `n` executions for `userId` of `activityId` in one statement (the list is what is measured, not the writes). */
async function seed(stack: Stack, userId: number, activityId: number, n: number): Promise<void> {
  const db = new Client({ connectionString: stack.db.url });
  await db.connect();
  try {
    await db.query(
      `INSERT INTO workflow_executions (activity_id, user_id, status, workflow_definition, inputs, task_states, started_at, completed_at, total_cost, created_at, updated_at)
       SELECT $1, $2, (ARRAY['completed','failed','running','awaiting_user_input','queued'])[1 + i % 5],
              a.workflow_definition, jsonb_build_object('amount', i), '{}'::jsonb,
              now() - make_interval(secs => i * 60), now() - make_interval(secs => i * 60 - 2), (i % 7) * 0.001,
              now() - make_interval(secs => i * 60), now() - make_interval(secs => i * 60)
         FROM generate_series(1, $3::int) AS i, activities a WHERE a.id = $1`,
      [activityId, userId, n],
    );
  } finally {
    await db.end();
  }
}

/** Records, inside the page, when the first row link of the executions list appears (an init script: not subject to the CSP). */
const FIRST_ROWS_PROBE = `
  new MutationObserver((_, obs) => {
    if (document.querySelector('[data-testid="execution-row"] a')) { window.__firstRows = performance.now(); obs.disconnect(); }
  }).observe(document, { childList: true, subtree: true });`;

async function coldPage(browser: Browser, jwt?: string, user?: object): Promise<{ page: Page; close: () => Promise<void> }> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  if (jwt) await context.addInitScript(`sessionStorage.setItem('docflow.session', ${JSON.stringify(JSON.stringify({ jwt, user }))});`);
  await context.addInitScript(FIRST_ROWS_PROBE);
  const page = await context.newPage();
  return { page, close: () => context.close() };
}

async function firstPaint(browser: Browser, base: string): Promise<number> {
  const { page, close } = await coldPage(browser);
  try {
    await page.goto(`${base}/`);
    await page.getByRole('heading', { name: 'Sign in to Docflow' }).waitFor();
    return await page.evaluate<number>(`performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN`);
  } finally {
    await close();
  }
}

async function firstRows(browser: Browser, base: string, jwt: string, user: object): Promise<number> {
  const { page, close } = await coldPage(browser, jwt, user);
  try {
    await page.goto(`${base}/executions`);
    await page.waitForFunction(hasFirstRows, undefined, { timeout: 60000 });
    return await page.evaluate<number>('window.__firstRows');
  } finally {
    await close();
  }
}

/** Scrolls the list from top to bottom in 40 steps, waiting for the rows of each position, while a rAF loop records frame intervals. */
async function scrollFrames(browser: Browser, base: string, jwt: string, user: object): Promise<{ p50: number; p95: number; max: number; maxRows: number; lastRowId: string }> {
  const { page, close } = await coldPage(browser, jwt, user);
  try {
    await page.goto(`${base}/executions`);
    await page.waitForFunction(hasFirstRows, undefined, { timeout: 60000 });
    await page.evaluate(`(() => {
      window.__frames = []; window.__maxRows = 0; let last = performance.now();
      const tick = (t) => { window.__frames.push(t - last); last = t;
        window.__maxRows = Math.max(window.__maxRows, document.querySelectorAll('[data-testid="execution-row"]').length);
        if (!window.__stop) requestAnimationFrame(tick); };
      requestAnimationFrame(tick);
    })()`);
    const list = page.locator('.exec-list');
    for (let step = 1; step <= 40; step++) {
      await list.evaluate((el, s) => {
        const e = el as unknown as { scrollTop: number; scrollHeight: number };
        e.scrollTop = (e.scrollHeight * s) / 40;
      }, step);
      await page.waitForFunction(rowsFilled, undefined, { timeout: 30000 });
    }
    const lastRowId = await page.locator('[data-testid="execution-row"] a').last().textContent();
    const { frames, maxRows } = await page.evaluate<{ frames: number[]; maxRows: number }>(
      '(() => { window.__stop = true; return { frames: window.__frames.slice(1), maxRows: window.__maxRows }; })()',
    );
    const sorted = [...frames].sort((a, b) => a - b);
    return { p50: percentile(sorted, 50), p95: percentile(sorted, 95), max: sorted[sorted.length - 1] ?? NaN, maxRows, lastRowId: lastRowId ?? '' };
  } finally {
    await close();
  }
}

async function main(): Promise<void> {
  const sizes = bundleSizes();
  const stack = await Stack.start({ portOffset: 750, env: { LOG_LEVEL: 'warn' } });
  const browser = await launchChromium();
  try {
    const base = stack.url('public-api');
    const def = definition([startNode(), endNode()], [edge('start', 'end')], objectSchema({}));
    const accounts = [
      { who: 'bob', id: 'bob@docflow.local', password: 'Bob#Pass123', executions: 10 },
      { who: 'alice', id: 'alice@docflow.local', password: 'Alice#Pass123', executions: BIG },
    ];
    const sessions: Record<string, { jwt: string; user: { id: number } }> = {};
    for (const a of accounts) {
      const api = await WorkflowApi.login(stack.api, a.id, a.password);
      const me = await api.me();
      const activity = await api.createActivity({ name: `Bench ${a.who}`, workflow_definition: def });
      await seed(stack, me.id, activity, a.executions);
      sessions[a.who] = { jwt: await login(stack, a.id, a.password), user: me };
    }
    for (let i = 0; i < 2; i++) await firstPaint(browser, base); // warm the services and the disk cache, not the browser's

    const paints: number[] = [];
    const rowsSmall: number[] = [];
    const rowsBig: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      paints.push(await firstPaint(browser, base));
      rowsSmall.push(await firstRows(browser, base, sessions['bob']!.jwt, sessions['bob']!.user));
      rowsBig.push(await firstRows(browser, base, sessions['alice']!.jwt, sessions['alice']!.user));
    }
    // The server's share of the first rows: the list's first page of 100 for the user with BIG executions.
    const apiMs: number[] = [];
    for (let i = 0; i < 20; i++) {
      const t0 = performance.now();
      const res = await fetch(`${stack.api}/workflow-executions?pagination[pageSize]=100`, { headers: { authorization: `Bearer ${sessions['alice']!.jwt}` } });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`the list answered ${res.status}`);
      apiMs.push(performance.now() - t0);
    }
    const scroll = await scrollFrames(browser, base, sessions['alice']!.jwt, sessions['alice']!.user);
    const ms = (x: number) => +x.toFixed(1);
    report('console', [
      ...sizes,
      { figure: 'first contentful paint, sign-in page (ms, median)', value: ms(median(paints)), budget: '≤ 1000', note: `${RUNS} cold loads: ${paints.map(ms).join(', ')}` },
      { figure: 'navigation → first rows, 10 executions (ms, median)', value: ms(median(rowsSmall)), budget: '≤ 1000', note: rowsSmall.map(ms).join(', ') },
      { figure: `navigation → first rows, ${BIG.toLocaleString('en')} executions (ms, median)`, value: ms(median(rowsBig)), budget: '≤ 1000', note: rowsBig.map(ms).join(', ') },
      {
        figure: `GET /workflow-executions, first 100 of ${BIG.toLocaleString('en')} (ms, p50 / p95)`,
        value: `${ms(
          percentile(
            [...apiMs].sort((a, b) => a - b),
            50,
          ),
        )} / ${ms(
          percentile(
            [...apiMs].sort((a, b) => a - b),
            95,
          ),
        )}`,
        budget: '—',
        note: '20 requests, with the total count',
      },
      {
        figure: `scrolling ${BIG.toLocaleString('en')} rows: frame p50 / p95 / max (ms)`,
        value: `${ms(scroll.p50)} / ${ms(scroll.p95)} / ${ms(scroll.max)}`,
        budget: 'p95 ≤ 50',
        note: `40 jumps top → bottom, last row ${scroll.lastRowId}`,
      },
      { figure: 'most list rows in the DOM at once', value: scroll.maxRows, budget: 'virtualised', note: `of ${BIG.toLocaleString('en')}` },
    ]);
  } finally {
    await browser.close();
    await stack.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
