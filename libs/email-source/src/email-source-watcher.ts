import type { Logger } from '@docflow/service-kit';
import type { EmailCursorStore } from './cursor-store';
import type { EmailSourceError } from './email-errors';
import type { EmailReceivedEvent } from './email-event';
import type { EmailSourceSettings } from './email-source-config';
import { MailboxWatcher, type ImapServer, type MailboxWatcherOptions } from './mailbox-watcher';

export interface EmailSourceWatcherOptions {
  sourceId: number;
  settings: EmailSourceSettings;
  server: ImapServer;
  cursors: EmailCursorStore;
  onMessage(event: EmailReceivedEvent): Promise<void>;
  /** Called once when the source stops for good (the API sets `is_active` false with `error_message`). */
  onStopped(error: EmailSourceError): void;
  logger: Logger;
  tuning?: Pick<MailboxWatcherOptions, 'maxMessageBytes' | 'reconnectBaseMs' | 'reconnectMaxMs' | 'pollMs' | 'retryBaseMs'>;
}

/**
 * An e-mail source (`source_type: email`): one MailboxWatcher per mailbox
 * of `label_ids`, each on its own IMAP IDLE connection. `start` resolves
 * once every mailbox is open and caught up, and rejects (closing the
 * others) when a login or a mailbox is refused.
 */
export class EmailSourceWatcher {
  private readonly watchers: MailboxWatcher[];
  private stoppedWith: EmailSourceError | undefined;

  constructor(private readonly options: EmailSourceWatcherOptions) {
    this.watchers = options.settings.mailboxes.map(
      (mailbox) =>
        new MailboxWatcher({
          ...options.tuning,
          sourceId: options.sourceId,
          emailAddress: options.settings.emailAddress,
          mailbox,
          server: options.server,
          cursors: options.cursors,
          onMessage: options.onMessage,
          onStopped: (error) => this.stopWith(error),
          logger: options.logger,
        }),
    );
  }

  async start(): Promise<void> {
    const results = await Promise.allSettled(this.watchers.map((w) => w.start()));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) {
      await this.stop();
      throw failed.reason;
    }
  }

  /** A read pass on every mailbox now. */
  async checkNow(): Promise<void> {
    await Promise.all(this.watchers.map((w) => w.checkNow()));
  }

  async stop(): Promise<void> {
    await Promise.all(this.watchers.map((w) => w.stop()));
  }

  private stopWith(error: EmailSourceError): void {
    if (this.stoppedWith) return;
    this.stoppedWith = error;
    void this.stop().finally(() => this.options.onStopped(error));
  }
}
