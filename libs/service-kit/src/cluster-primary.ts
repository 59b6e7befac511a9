import cluster, { type Worker } from 'node:cluster';
import type { Logger } from './logger';
import { serveClusterMetrics } from './metrics';

export interface PrimaryOptions {
  workers: number;
  /** How long workers get to finish after SIGTERM before they are killed. */
  shutdownTimeoutMs: number;
  logger: Logger;
}

const RESPAWN_DELAY_MS = 1000;
/** More unplanned exits than this within CRASH_WINDOW_MS and the primary gives up (exit 1). */
const MAX_CRASHES = 5;
const CRASH_WINDOW_MS = 60_000;

/**
 * The primary of a multi-process service (the public API's PUBLIC_API_WORKERS,
 * the router's ROUTER_REPLICAS > 1): forks the workers, which share the
 * listening port and each run the whole service (everything in it is
 * replica-safe), replaces a worker that dies,
 * gives up on a crash loop, answers the workers' /metrics requests with the
 * cluster's aggregate, and on SIGTERM or SIGINT passes the signal on and
 * exits once every worker has stopped.
 */
export function runPrimary(options: PrimaryOptions): void {
  const { logger } = options;
  let stopping = false;
  const crashes: number[] = [];
  serveClusterMetrics();

  const fork = (): Worker => cluster.fork();
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) {
        logger.info('all workers stopped');
        process.exit(0);
      }
      return;
    }
    const now = Date.now();
    crashes.push(now);
    while (crashes.length && crashes[0]! < now - CRASH_WINDOW_MS) crashes.shift();
    logger.error('worker exited; starting another', { pid: worker.process.pid, code, signal, recentExits: crashes.length });
    if (crashes.length > MAX_CRASHES) {
      logger.error('workers keep exiting; giving up', { exits: crashes.length, windowMs: CRASH_WINDOW_MS });
      stopping = true;
      for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGTERM');
      setTimeout(() => process.exit(1), options.shutdownTimeoutMs).unref();
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(1);
      return;
    }
    setTimeout(() => {
      if (!stopping) fork();
    }, RESPAWN_DELAY_MS).unref();
  });

  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info('stopping workers', { signal });
    const alive = Object.values(cluster.workers ?? {});
    if (alive.length === 0) process.exit(0);
    for (const w of alive) w?.process.kill('SIGTERM');
    // A worker that does not stop in time is killed; its unacknowledged messages go back to their queues.
    setTimeout(() => {
      for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGKILL');
      process.exit(1);
    }, options.shutdownTimeoutMs + 5000).unref();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));

  logger.info('starting workers', { workers: options.workers });
  for (let i = 0; i < options.workers; i++) fork();
}
