import { Client } from 'pg';
import { errorMessage, type Logger } from '@docflow/service-kit';

export interface NotificationListenerOptions {
  url: string;
  /** The channel to LISTEN on: an SQL identifier of letters, digits and underscores. */
  channel: string;
  /** Called with each notification's payload, in the order PostgreSQL delivered them. */
  onNotify(payload: string): void;
  /**
   * `true` once LISTEN is in effect, `false` whenever the connection is lost
   * (notifications sent while it was down are gone: a consumer that caches
   * must forget everything it knows at that point).
   */
  onLiveChange(live: boolean): void;
  logger: Logger;
  /** First reconnection delay; doubles up to `maxRetryMs`. Default 200. */
  retryMs?: number;
  maxRetryMs?: number;
}

export interface NotificationListener {
  /** Resolves once the first LISTEN succeeded or failed (it keeps retrying after a failure). */
  ready: Promise<void>;
  close(): Promise<void>;
}

/**
 * A dedicated connection that LISTENs on one channel and reconnects with
 * backoff. PostgreSQL delivers a NOTIFY only when its transaction commits,
 * to every session listening at that moment.
 */
export function listenForNotifications(options: NotificationListenerOptions): NotificationListener {
  if (!/^[a-z_][a-z0-9_]*$/.test(options.channel)) throw new Error(`invalid channel name ${options.channel}`);
  const { logger } = options;
  const baseDelay = options.retryMs ?? 200;
  const maxDelay = options.maxRetryMs ?? 10_000;
  let client: Client | undefined;
  let closed = false;
  let delay = baseDelay;
  let timer: NodeJS.Timeout | undefined;
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));

  const lost = (c: Client, err?: unknown) => {
    if (client !== c) return;
    client = undefined;
    options.onLiveChange(false);
    c.removeAllListeners('notification');
    c.end().catch(() => undefined);
    if (closed) return;
    logger.warn('notification listener lost its connection; reconnecting', { channel: options.channel, error: errorMessage(err ?? 'ended'), retryInMs: delay });
    schedule();
  };

  const schedule = () => {
    timer = setTimeout(() => void connect(), delay);
    delay = Math.min(delay * 2, maxDelay);
  };

  const connect = async () => {
    const c = new Client({ connectionString: options.url, keepAlive: true });
    client = c;
    c.on('error', (err) => lost(c, err));
    c.on('end', () => lost(c));
    c.on('notification', (n) => {
      if (n.channel === options.channel) options.onNotify(n.payload ?? '');
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${options.channel}`);
      if (client !== c || closed) return;
      delay = baseDelay;
      options.onLiveChange(true);
    } catch (err) {
      lost(c, err);
    } finally {
      markReady();
    }
  };

  void connect();
  return {
    ready,
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      const c = client;
      client = undefined;
      if (c) {
        options.onLiveChange(false);
        c.removeAllListeners('notification');
        await c.end().catch(() => undefined);
      }
    },
  };
}
