import http from 'node:http';
import type { Express } from 'express';
import type { RequestListener } from 'node:http';
import { Logger } from './logger';
import { errorMessage } from './values';

type ShutdownHook = { name: string; fn: () => Promise<void> | void };

/**
 * Owns start and stop of one service process. Hooks run in reverse order of
 * registration on SIGTERM or SIGINT (stop accepting and consuming first,
 * then finish in-flight work, then close pools), and the process exits 0.
 */
export class Lifecycle {
  private readonly hooks: ShutdownHook[] = [];
  private stopping: Promise<void> | undefined;

  constructor(
    private readonly logger: Logger,
    private readonly timeoutMs = 25000,
  ) {}

  onShutdown(name: string, fn: () => Promise<void> | void): void {
    this.hooks.push({ name, fn });
  }

  get isStopping(): boolean {
    return this.stopping !== undefined;
  }

  async listen(app: Express | RequestListener, port: number, host = '0.0.0.0'): Promise<http.Server> {
    const server = http.createServer(app);
    server.keepAliveTimeout = 65000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.onShutdown('http server', () => closeServer(server, this.timeoutMs));
    return server;
  }

  installSignalHandlers(): void {
    const handler = (signal: NodeJS.Signals) => {
      this.logger.info('shutdown requested', { signal });
      void this.shutdown().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    };
    process.once('SIGTERM', handler);
    process.once('SIGINT', handler);
  }

  shutdown(): Promise<void> {
    if (!this.stopping) this.stopping = this.runHooks();
    return this.stopping;
  }

  private async runHooks(): Promise<void> {
    const force = setTimeout(() => {
      this.logger.error('shutdown timed out; exiting', { timeoutMs: this.timeoutMs });
      process.exit(1);
    }, this.timeoutMs + 2000);
    force.unref();
    for (const hook of [...this.hooks].reverse()) {
      try {
        await hook.fn();
        this.logger.debug('stopped', { component: hook.name });
      } catch (err) {
        this.logger.error('error while stopping', { component: hook.name, error: errorMessage(err) });
      }
    }
    clearTimeout(force);
    this.logger.info('stopped cleanly');
  }
}

function closeServer(server: http.Server, timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      server.closeAllConnections();
    }, timeoutMs);
    timer.unref();
    server.close(() => {
      clearTimeout(timer);
      resolve();
    });
    server.closeIdleConnections();
  });
}
