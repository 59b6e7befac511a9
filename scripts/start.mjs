#!/usr/bin/env node
// `npm start`: installs what is missing, builds, creates the database, runs
// the six services in the foreground with prefixed output, prints one line
// containing "ready" once every /_health answers 204, and stops them all on
// SIGINT or SIGTERM. See README.md ("What npm start does").
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import http from 'node:http';
import readline from 'node:readline';
import { prepareRuntimeEnv, redactUrl, ROOT } from './lib/env.mjs';
import { amqpEndpoint, canConnect, ensureDatabase } from './lib/infra.mjs';
import { serviceNodeFlags } from './lib/node-flags.mjs';
import { ensureNodeModules, formatDuration, installSystemDeps, makeReporter, run } from './lib/proc.mjs';
import { entryOf, hasSource, portOf, SERVICES } from './lib/services.mjs';

const HEALTH_TIMEOUT_MS = 10 * 60 * 1000;
const REPORT_EVERY_MS = 15000;
const KILL_AFTER_MS = 30000;
/** A replica (of a service run as several) that dies is started again after this long; one of a single service stops everything. */
const RESPAWN_AFTER_MS = 1000;
/** More unplanned exits of one replica than this within a minute is a crash loop: everything stops. */
const MAX_REPLICA_EXITS_PER_MINUTE = 5;

const reporter = makeReporter('start');
const { log, warn, error } = reporter;

// (a) npm packages
if (!(await ensureNodeModules(reporter))) process.exit(1);

// (b, c) secrets in .env, .env loaded, contract defaults
const env = prepareRuntimeEnv(reporter);
log(`NODE_ENV=${env.NODE_ENV}, database ${redactUrl(env.DATABASE_URL)}, broker ${redactUrl(env.AMQP_URL)}`);

// (d) LibreOffice and tesseract, when the script for them exists
await installSystemDeps(reporter);

// (e) build the services that exist so far
const services = SERVICES.filter((s) => {
  if (hasSource(s.name)) return true;
  warn(`apps/${s.name}/src/main.ts does not exist yet; skipping ${s.name}`);
  return false;
});
if (services.length === 0) {
  error('no service has a src/main.ts; nothing to start');
  process.exit(1);
}
if ((await run(process.execPath, ['scripts/build.mjs', ...services.map((s) => s.name)])) !== 0) {
  error('build failed');
  process.exit(1);
}

// (f) the database, created once here so the services do not race to create it
try {
  if (await ensureDatabase(env.DATABASE_URL)) log(`created database ${redactUrl(env.DATABASE_URL)}`);
} catch (err) {
  error(`cannot prepare the database at ${redactUrl(env.DATABASE_URL)}: ${err.message}`);
  error('is PostgreSQL running? (pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start)');
  process.exit(1);
}
const broker = amqpEndpoint(env.AMQP_URL);
if (!(await canConnect(broker.host, broker.port))) {
  warn(`nothing listens at ${broker.host}:${broker.port} (AMQP_URL): services that need RabbitMQ stay unhealthy until it is up`);
}
// (f2) replicas: processors as extra processes on the ports after their own
// (8041, 8042, ...), each consuming its queue; the router as node:cluster
// workers on its one port (ROUTER_REPLICAS, read by the router itself), so
// the public API keeps one ROUTER_URL; the public API as PUBLIC_API_WORKERS.
const REPLICA_VARS = { 'workflow-processor': 'WORKFLOW_PROCESSOR_REPLICAS', 'extraction-processor': 'EXTRACTION_PROCESSOR_REPLICAS' };
function replicasOf(name) {
  const variable = REPLICA_VARS[name];
  if (!variable) return 1;
  const raw = env[variable];
  const n = raw === undefined || raw === '' ? 1 : Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 16) {
    error(`${variable} must be an integer from 1 to 16 (got ${raw})`);
    process.exit(1);
  }
  return n;
}
const instances = services.flatMap((s) => {
  const n = replicasOf(s.name);
  return Array.from({ length: n }, (_, i) => ({ service: s, index: i, replicas: n, name: n > 1 ? `${s.name}#${i + 1}` : s.name, port: portOf(s, env) + i }));
});
for (const inst of instances) {
  const s = inst.service;
  if (await canConnect('127.0.0.1', inst.port)) {
    error(`port ${inst.port} (${s.portVar}${inst.index ? ` + ${inst.index}` : ''}, ${inst.name}) is taken by another process; is another Docflow running? Stop it or set ${s.portVar}`);
    process.exit(1);
  }
}

// (f3) V8 heap flags, the same for every service (NODE_MAX_SEMI_SPACE_MB; cluster workers inherit them)
const nodeFlags = serviceNodeFlags(env);
if (nodeFlags.error) {
  error(nodeFlags.error);
  process.exit(1);
}

// (g) the services, in the foreground
const useColor = process.stdout.isTTY && !process.env.NO_COLOR && process.env.FORCE_COLOR !== '0';
const COLORS = [36, 35, 33, 32, 34, 91];
const width = Math.max(...instances.map((inst) => inst.name.length)) + 2;
const children = [];
let stopping = false;
let finished = false;
let exitCode = 0;
let killTimer;
let firstSignalAt = 0;

const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

function describeExit(code, signal) {
  return signal ? `signal ${signal}` : `exit code ${code}`;
}

function killGroup(child, signal) {
  try {
    process.kill(-child.proc.pid, signal);
  } catch {
    /* already gone */
  }
}

function finishIfDone() {
  if (!stopping || finished || children.some((c) => !c.exited)) return;
  finished = true;
  clearTimeout(killTimer);
  log(exitCode === 0 ? 'all services stopped' : 'all services stopped after a failure');
  process.exitCode = exitCode;
  // Pipes held open by a grandchild must not keep us alive.
  setTimeout(() => process.exit(exitCode), 2000).unref();
}

function stopAll(code, why) {
  if (stopping) return;
  stopping = true;
  exitCode = code;
  log(why);
  for (const c of children) if (!c.exited) c.proc.kill('SIGTERM');
  killTimer = setTimeout(() => {
    for (const c of children) {
      if (!c.exited) {
        warn(`${c.name} did not stop within ${KILL_AFTER_MS / 1000} s; killing it`);
        killGroup(c, 'SIGKILL');
      }
    }
  }, KILL_AFTER_MS);
  finishIfDone();
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    if (!stopping) {
      firstSignalAt = Date.now();
      stopAll(0, `${signal} received: stopping ${plural(children.filter((c) => !c.exited).length, 'service')}`);
    } else if (Date.now() - firstSignalAt > 1500) {
      warn(`${signal} received again: killing the services now`);
      for (const c of children) if (!c.exited) killGroup(c, 'SIGKILL');
    }
  });
}
process.on('exit', () => {
  for (const c of children) if (!c.exited) killGroup(c, 'SIGKILL');
});

function pipeLines(stream, out, prefix) {
  readline.createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => out.write(`${prefix}${line}\n`));
}

const spawnedAt = Date.now();
function launch(inst, colorIndex, child) {
  const s = inst.service;
  const entry = entryOf(s.name);
  const label = `[${inst.name}]`.padEnd(width);
  const prefix = `${useColor ? `\u001b[${COLORS[colorIndex % COLORS.length]}m${label}\u001b[0m` : label} `;
  const childEnv = inst.index ? { ...env, [s.portVar]: String(inst.port) } : env;
  // Own process group: the terminal's Ctrl-C reaches only this script, which
  // then sends exactly one SIGTERM to each service.
  const proc = spawn(process.execPath, ['--enable-source-maps', ...nodeFlags.flags, entry], { cwd: ROOT, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  child.proc = proc;
  child.exited = false;
  pipeLines(proc.stdout, process.stdout, prefix);
  pipeLines(proc.stderr, process.stderr, prefix);
  proc.on('error', (err) => {
    child.exited = true;
    error(`cannot start ${inst.name}: ${err.message}`);
    stopAll(1, 'stopping the other services');
    finishIfDone();
  });
  proc.on('exit', (code, signal) => {
    child.exited = true;
    const now = Date.now();
    child.exits = (child.exits ?? []).filter((t) => t > now - 60000).concat(now);
    if (!stopping && inst.replicas > 1 && child.exits.length > MAX_REPLICA_EXITS_PER_MINUTE) {
      error(`${inst.name} exited ${child.exits.length} times within a minute (${describeExit(code, signal)}); giving up`);
      stopAll(1, 'stopping the other services');
    } else if (!stopping && inst.replicas > 1) {
      warn(`${inst.name} exited unexpectedly (${describeExit(code, signal)}); its ${plural(inst.replicas - 1, 'other replica')} carry on, starting it again in ${RESPAWN_AFTER_MS} ms`);
      setTimeout(() => {
        if (!stopping) launch(inst, colorIndex, child);
      }, RESPAWN_AFTER_MS);
    } else if (!stopping) {
      error(`${inst.name} exited unexpectedly (${describeExit(code, signal)})`);
      stopAll(1, 'stopping the other services');
    } else {
      log(`${inst.name} stopped (${describeExit(code, signal)})`);
    }
    finishIfDone();
  });
}
instances.forEach((inst) => {
  const entry = entryOf(inst.service.name);
  if (!existsSync(entry)) {
    warn(`${entry} was not built; skipping ${inst.name}`);
    return;
  }
  const child = { name: inst.name, port: inst.port, proc: undefined, exited: false };
  children.push(child);
  launch(inst, services.indexOf(inst.service), child);
});
log(`started ${children.map((c) => c.name).join(', ')}; waiting for every /_health to answer 204`);

// (h) health
function probe(port) {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/_health', timeout: 2000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        if (body.length < 4000) body += chunk;
      });
      res.on('end', () => {
        if (res.statusCode === 204) return resolve({ ok: true });
        let detail = '';
        try {
          const failing = JSON.parse(body).failing;
          if (Array.isArray(failing)) detail = failing.map((f) => `${f.name}: ${f.error}`).join('; ');
        } catch {
          /* not JSON */
        }
        resolve({ ok: false, detail: `${res.statusCode}${detail ? ` ${detail.slice(0, 200)}` : ''}` });
      });
    });
    req.on('timeout', () => req.destroy(new Error('no answer within 2 s')));
    req.on('error', (err) => resolve({ ok: false, detail: err.code === 'ECONNREFUSED' ? 'not listening yet' : err.message }));
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let lastReport = Date.now();
while (!stopping) {
  const results = await Promise.all(children.map((c) => probe(c.port)));
  if (stopping) break;
  if (results.every((r) => r.ok)) {
    const skipped = SERVICES.length - services.length;
    const base = env.PUBLIC_BASE_URL.replace(/\/$/, '');
    const api = services.some((s) => s.name === 'public-api') ? ` — public API ${base}/api, console ${base}/` : '';
    const note = skipped ? ` (${skipped} of ${SERVICES.length} services not written yet)` : '';
    const replicaNote = children.length > services.length ? ` (${children.length} processes with replicas)` : '';
    process.stdout.write(`docflow ready: ${plural(services.length, 'service')}${replicaNote} healthy in ${formatDuration(Date.now() - spawnedAt)}${api}${note}\n`);
    break;
  }
  const now = Date.now();
  if (now - spawnedAt > HEALTH_TIMEOUT_MS) {
    const bad = children.filter((_, i) => !results[i].ok).map((c) => c.name);
    error(`still unhealthy after ${formatDuration(HEALTH_TIMEOUT_MS)}: ${bad.join(', ')}`);
    stopAll(1, 'stopping all services');
    break;
  }
  if (now - lastReport >= REPORT_EVERY_MS) {
    lastReport = now;
    const waiting = children.map((c, i) => (results[i].ok ? undefined : `${c.name} (${results[i].detail})`)).filter(Boolean);
    log(`waiting ${formatDuration(now - spawnedAt)} for: ${waiting.join(', ')}`);
  }
  await sleep(now - spawnedAt < 15000 ? 1000 : 2000);
}
