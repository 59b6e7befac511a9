import { ImapFlow, type ImapFlowError } from 'imapflow';
import type { Logger } from '@docflow/service-kit';
import type { EmailCursorStore, MailboxCursor } from './cursor-store';
import { EmailSourceError } from './email-errors';
import { oversizedEmailEvent, parseEmailMessage, type EmailReceivedEvent, type MessageLocation } from './email-event';

/** The IMAP server and login of a source, from a stored credential of its owner (event-bus phase 2). */
export interface ImapServer {
  host: string;
  port: number;
  /** Implicit TLS (port 993). false: plain, upgraded with STARTTLS when the server offers it. */
  secure: boolean;
  user: string;
  password: string;
  /** Default true. */
  rejectUnauthorized?: boolean;
}

export interface MailboxWatcherOptions {
  sourceId: number;
  emailAddress: string;
  mailbox: string;
  server: ImapServer;
  cursors: EmailCursorStore;
  /** Awaited for each new message, oldest first; the cursor moves past a message only once this resolved. */
  onMessage(event: EmailReceivedEvent): Promise<void>;
  /** The watcher stopped for good (login refused, mailbox missing): the source becomes inactive with the message. */
  onStopped(error: EmailSourceError): void;
  logger: Logger;
  /** Messages past this are reported without content. Default 25 MiB. */
  maxMessageBytes?: number;
  /** Reconnect backoff after a dropped connection. Defaults 1 s doubling to 5 min. */
  reconnectBaseMs?: number;
  reconnectMaxMs?: number;
  /** A read pass at least this often, besides IDLE's notifications. Default 5 min. */
  pollMs?: number;
  /** First wait before a failed pass is tried again; doubles to 1 min. Default 1 s. */
  retryBaseMs?: number;
}

function isImapError(err: unknown): err is ImapFlowError {
  return err instanceof Error;
}

/**
 * Watches one mailbox of a source over its own IMAP connection (IDLE
 * watches the selected mailbox only): it opens the mailbox read-only, takes
 * every message whose UID is past the saved cursor, and reads again each
 * time the server announces new messages (EXISTS while idling), on a timer,
 * and after each reconnect. The first start of a source, or a changed
 * UIDVALIDITY, starts from the mailbox's end: only new mail emits.
 */
export class MailboxWatcher {
  private client: ImapFlow | undefined;
  private chain: Promise<void> = Promise.resolve();
  private stopped = false;
  private reconnectAttempt = 0;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private failedPasses = 0;

  constructor(private readonly options: MailboxWatcherOptions) {}

  /** Connects, opens the mailbox and reads what arrived since the cursor; rejects with EmailSourceError. */
  async start(): Promise<void> {
    await this.connect();
    const pollMs = this.options.pollMs ?? 300_000;
    this.pollTimer = setInterval(() => void this.checkNow().catch(() => undefined), pollMs);
    this.pollTimer.unref();
  }

  /** One read pass now (queued behind a pass in progress); a failed pass is tried again after a backoff. */
  checkNow(): Promise<void> {
    const run = this.chain.then(() => this.readNew());
    this.chain = run.then(
      () => {
        this.failedPasses = 0;
      },
      (err: unknown) => {
        this.failedPasses += 1;
        this.options.logger.warn('email read pass failed; trying again', { sourceId: this.options.sourceId, mailbox: this.options.mailbox, failedPasses: this.failedPasses, err });
        this.retryLater();
      },
    );
    return run;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    if (this.pollTimer) clearInterval(this.pollTimer);
    if (this.retryTimer) clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = undefined;
    await this.chain;
    if (client) await client.logout().catch(() => client.close());
  }

  private async connect(): Promise<void> {
    const { server, mailbox, logger, sourceId } = this.options;
    const client = new ImapFlow({
      host: server.host,
      port: server.port,
      secure: server.secure,
      auth: { user: server.user, pass: server.password },
      tls: { rejectUnauthorized: server.rejectUnauthorized ?? true },
      logger: false,
      connectionTimeout: 30_000,
      greetingTimeout: 15_000,
      maxIdleTime: 4 * 60_000,
      // IDLE starts this long after the last command (imapflow's default, 15 s, would leave new mail unseen that long).
      autoIdleDelay: 1000,
    });
    // An unhandled 'error' event would end the process.
    client.on('error', (err: unknown) => logger.warn('imap connection error', { sourceId, mailbox, err }));
    try {
      await client.connect();
    } catch (err) {
      client.close();
      if (isImapError(err) && err.authenticationFailed) throw new EmailSourceError('auth', `The mail server refused the login of ${server.user}`, mailbox);
      throw new EmailSourceError('connection', `The mail server ${server.host}:${server.port} could not be reached (${isImapError(err) ? (err.code ?? err.message) : String(err)})`, mailbox);
    }
    try {
      await client.mailboxOpen(mailbox, { readOnly: true });
    } catch (err) {
      await client.logout().catch(() => client.close());
      if (isImapError(err) && (err.mailboxMissing || err.serverResponseCode === 'NONEXISTENT')) throw new EmailSourceError('mailbox_missing', `The mailbox ${mailbox} does not exist`, mailbox);
      throw new EmailSourceError('connection', `The mailbox ${mailbox} could not be opened`, mailbox);
    }
    client.on('exists', () => void this.checkNow().catch(() => undefined));
    client.on('close', () => this.closed(client));
    this.client = client;
    this.reconnectAttempt = 0;
    await this.checkNow();
  }

  /** After a failed pass (the handler threw, a command failed): another pass, 1 s doubling to 1 min. */
  private retryLater(): void {
    if (this.stopped || this.retryTimer) return;
    const delay = Math.min(60_000, (this.options.retryBaseMs ?? 1000) * 2 ** (this.failedPasses - 1));
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.checkNow().catch(() => undefined);
    }, delay);
    this.retryTimer.unref();
  }

  private closed(client: ImapFlow): void {
    if (this.stopped || this.client !== client) return;
    this.client = undefined;
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    const base = this.options.reconnectBaseMs ?? 1000;
    const delay = Math.min(this.options.reconnectMaxMs ?? 300_000, base * 2 ** this.reconnectAttempt);
    this.reconnectAttempt += 1;
    this.options.logger.info('imap connection closed; reconnecting', { sourceId: this.options.sourceId, mailbox: this.options.mailbox, delayMs: delay });
    this.reconnectTimer = setTimeout(() => {
      if (this.stopped) return;
      this.connect().catch((err: unknown) => {
        if (err instanceof EmailSourceError && err.kind !== 'connection') {
          this.stopped = true;
          this.options.onStopped(err);
        } else if (!this.stopped) this.scheduleReconnect();
      });
    }, delay);
    this.reconnectTimer.unref();
  }

  private async readNew(): Promise<void> {
    const client = this.client;
    if (!client || this.stopped || !client.mailbox) return;
    const { sourceId, mailbox, cursors } = this.options;
    const uidValidity = String(client.mailbox.uidValidity);
    let cursor = await cursors.get(sourceId, mailbox);
    if (!cursor || cursor.uidValidity !== uidValidity) {
      // A new source, or a mailbox whose UIDs were reset: start from its end.
      const last = await client.fetchOne('*', { uid: true }, { uid: false }).catch(() => false as const);
      cursor = { uidValidity, lastUid: last ? last.uid : 0 };
      await cursors.set(sourceId, mailbox, cursor);
      return;
    }
    // A server shows a session new messages only once it has announced them (EXISTS): NOOP asks it to, so a
    // pass finds what arrived since, whether or not IDLE reported it yet.
    await client.noop();
    const found = await client.search({ uid: `${cursor.lastUid + 1}:*` }, { uid: true });
    // `n:*` also matches the highest UID when it is below n (RFC 9051 6.4.8): keep only new ones.
    const uids = (found || []).filter((uid) => uid > cursor.lastUid).sort((a, b) => a - b);
    for (const uid of uids) {
      if (this.stopped || this.client !== client) return;
      await this.deliver(client, { uidValidity, lastUid: uid });
    }
  }

  private async deliver(client: ImapFlow, next: MailboxCursor): Promise<void> {
    const { sourceId, mailbox, cursors, emailAddress } = this.options;
    const location: MessageLocation = { sourceId, emailAddress, mailbox, uidValidity: next.uidValidity, uid: next.lastUid };
    const meta = await client.fetchOne(String(next.lastUid), { uid: true, size: true, envelope: true }, { uid: true });
    if (meta) {
      const max = this.options.maxMessageBytes ?? 25 * 1024 * 1024;
      let event: EmailReceivedEvent;
      if ((meta.size ?? 0) > max) {
        const envelope = meta.envelope;
        event = oversizedEmailEvent(location, {
          messageId: envelope?.messageId,
          subject: envelope?.subject,
          from: envelope?.from?.[0]?.address ?? null,
          date: envelope?.date === undefined ? undefined : new Date(envelope.date),
        });
      } else {
        const full = await client.fetchOne(String(next.lastUid), { uid: true, source: true }, { uid: true });
        if (!full || !full.source) return;
        event = await parseEmailMessage(full.source, location);
      }
      await this.options.onMessage(event);
    }
    // Expunged before it was read: nothing to emit, move on.
    await cursors.set(sourceId, mailbox, next);
  }
}
