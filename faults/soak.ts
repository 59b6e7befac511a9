/**
 * `npm run soak` (issue #15 item 2): the built stack with 3 workflow-processor replicas, 2 router workers and
 * 2 public API workers under the fault suite's mixed load for SOAK_MINUTES (default 10), SIGKILLing a random
 * processor replica every SOAK_KILL_EVERY_SECONDS (default 30; a supervisor's restart follows). Then it prints
 * the ledger, throughput, p50/p99 (start request to completed_at), the RSS of each service after the warm-up
 * and at the end, and the DLQ depths. Passes when nothing accepted is lost or duplicated, no service's RSS grew
 * by 20 % or more, and every DLQ is empty (the soak injects no poison).
 */
import { brokenPromises, FaultStack, sleep, type ProcessorName } from './support/fault-stack';

const MINUTES = Number(process.env.SOAK_MINUTES ?? 10);
const KILL_EVERY_MS = Number(process.env.SOAK_KILL_EVERY_SECONDS ?? 30) * 1000;
const RATE = Number(process.env.SOAK_RATE ?? 3);
const WARMUP_MS = 30_000;
const RSS_GROWTH_LIMIT = 0.2;

function log(line: string): void {
  process.stdout.write(`[soak ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
}

async function main(): Promise<number> {
  log(`starting: ${MINUTES} min, ${RATE} submissions/s, a processor SIGKILLed every ${KILL_EVERY_MS / 1000} s`);
  const fs = await FaultStack.start({
    portOffset: 900,
    workflowReplicas: 3,
    extractionReplicas: 1,
    routerReplicas: 2,
    apiWorkers: 2,
    env: { LOG_LEVEL: 'warn' },
  });
  try {
    const load = fs.startLoad({ perSecond: RATE });
    const started = Date.now();
    await sleep(WARMUP_MS);
    const rssStart = await fs.rss();
    log(`after the warm-up, RSS (MiB): ${JSON.stringify(rssStart)}`);
    const kills: string[] = [];
    const end = started + MINUTES * 60_000;
    let nextKill = Date.now() + KILL_EVERY_MS;
    while (Date.now() < end) {
      await sleep(Math.max(0, Math.min(nextKill, end) - Date.now()));
      if (Date.now() >= end) break;
      const candidates: [ProcessorName, number][] = [
        ...fs.replicas['workflow-processor'].map((r): [ProcessorName, number] => ['workflow-processor', r.index]),
        ...fs.replicas['extraction-processor'].map((r): [ProcessorName, number] => ['extraction-processor', r.index]),
      ];
      const [name, index] = candidates[Math.floor(Math.random() * candidates.length)]!;
      await fs.killAndRestart(name, index);
      kills.push(`${name}#${index}`);
      log(`killed ${name}#${index} (kill ${kills.length}); ${load.submissions.length} submissions so far`);
      nextKill += KILL_EVERY_MS;
    }
    const subs = await load.stop();
    const loadSeconds = (Date.now() - started) / 1000;
    log(`load stopped after ${Math.round(loadSeconds)} s; settling ${subs.length} submissions`);
    const rssEnd = await fs.rss();
    const ledger = await fs.ledger('soak', subs, { kills: kills.length }, 300_000);
    const completed = ledger.terminal['completed'] ?? 0;
    const growth = Object.fromEntries(Object.keys(rssStart).map((k) => [k, rssStart[k]! > 0 ? Math.round(((rssEnd[k]! - rssStart[k]!) / rssStart[k]!) * 1000) / 10 : 0]));
    const broken = brokenPromises(ledger);
    const grown = Object.entries(growth).filter(([, pct]) => pct >= RSS_GROWTH_LIMIT * 100);
    for (const [k, pct] of grown) broken.push(`RSS of ${k} grew ${pct} %`);
    process.stdout.write(`LEDGER ${JSON.stringify(ledger)}\n`);
    process.stdout.write(
      [
        `soak: ${MINUTES} min, ${kills.length} processor kills (${[...new Set(kills)].join(', ')})`,
        `accepted ${ledger.accepted} executions (${JSON.stringify(ledger.byKind)}), refused ${ledger.refused}; terminal ${JSON.stringify(ledger.terminal)}`,
        `effects: REST ${ledger.restEffects} (+${ledger.restRepeats} repeated calls absorbed by the key), mail ${ledger.mailEffects} (+${ledger.mailRepeats} repeats)`,
        `throughput: ${(completed / loadSeconds).toFixed(2)} completed executions/s; latency p50 ${ledger.latencyMs.p50} ms, p99 ${ledger.latencyMs.p99} ms`,
        `RSS MiB at start: ${JSON.stringify(rssStart)}`,
        `RSS MiB at end:   ${JSON.stringify(rssEnd)}`,
        `RSS growth %:     ${JSON.stringify(growth)} (processors restarted by a kill start over)`,
        `DLQ depths: ${JSON.stringify(ledger.dlq)}`,
        broken.length ? `soak FAILED:\n  - ${broken.join('\n  - ')}` : 'soak PASSED: nothing lost or duplicated, RSS growth under 20 %, no DLQ messages',
      ].join('\n') + '\n',
    );
    return broken.length ? 1 : 0;
  } finally {
    await fs.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`soak failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
