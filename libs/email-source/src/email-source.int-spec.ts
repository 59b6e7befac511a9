import { silentLogger, type Logger } from '@docflow/service-kit';
import { LoopbackDovecot } from '@docflow/testing';
import { InMemoryEmailCursorStore } from './cursor-store';
import type { EmailSourceError } from './email-errors';
import type { EmailReceivedEvent } from './email-event';
import { EmailSourceWatcher } from './email-source-watcher';
import type { ImapServer } from './mailbox-watcher';

jest.setTimeout(30000);

const ALICE = { user: 'alice@docflow.test', password: 'alice-imap-pass' };

function message(subject: string, attachment?: { name: string; type: string; bytes: Buffer }): string {
  const head = [
    `From: Sender <sender@example.test>`,
    `To: ${ALICE.user}`,
    `Subject: ${subject}`,
    `Date: Tue, 01 Apr 2025 10:00:00 +0000`,
    `Message-ID: <${subject.replace(/\W/g, '')}@example.test>`,
    'MIME-Version: 1.0',
  ];
  if (!attachment) return [...head, 'Content-Type: text/plain; charset=utf-8', '', `Body of ${subject}`, ''].join('\r\n');
  return [
    ...head,
    'Content-Type: multipart/mixed; boundary="b1"',
    '',
    '--b1',
    'Content-Type: text/plain; charset=utf-8',
    '',
    `Body of ${subject}`,
    '--b1',
    `Content-Type: ${attachment.type}; name="${attachment.name}"`,
    `Content-Disposition: attachment; filename="${attachment.name}"`,
    'Content-Transfer-Encoding: base64',
    '',
    attachment.bytes.toString('base64').replace(/(.{76})/g, '$1\r\n'),
    '--b1--',
    '',
  ].join('\r\n');
}

/** Collects events and lets a test wait for the n-th one (failing after `ms`, never asserting times). */
class Inbox {
  readonly events: EmailReceivedEvent[] = [];
  /** Every call of the handler, failed ones included. */
  readonly attempts: EmailReceivedEvent[] = [];
  private waiters: (() => void)[] = [];
  failNext = 0;

  readonly onMessage = async (event: EmailReceivedEvent): Promise<void> => {
    this.attempts.push(event);
    if (this.failNext > 0) {
      this.failNext -= 1;
      throw new Error('the event bus is down');
    }
    this.events.push(event);
    this.waiters.splice(0).forEach((w) => w());
  };

  async waitFor(count: number, ms = 15_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (this.events.length < count) {
      if (Date.now() > deadline) throw new Error(`expected ${count} e-mail events, got ${this.events.length}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 250);
      });
    }
  }
}

describe('EmailSourceWatcher against Dovecot (IMAP IDLE)', () => {
  let dovecot: LoopbackDovecot;
  let server: ImapServer;
  const running: EmailSourceWatcher[] = [];

  beforeAll(async () => {
    dovecot = await LoopbackDovecot.start([ALICE]);
    server = { host: dovecot.host, port: dovecot.port, secure: false, user: ALICE.user, password: ALICE.password };
  });

  afterEach(async () => {
    await Promise.all(running.splice(0).map((w) => w.stop()));
  });

  afterAll(async () => {
    await dovecot?.stop();
  });

  function watcher(
    sourceId: number,
    cursors: InMemoryEmailCursorStore,
    inbox: Inbox,
    mailboxes = ['INBOX'],
    extra: Partial<ImapServer> = {},
    stopped: EmailSourceError[] = [],
    logger: Logger = silentLogger,
  ) {
    const w = new EmailSourceWatcher({
      sourceId,
      settings: { emailAddress: ALICE.user, mailboxes },
      server: { ...server, ...extra },
      cursors,
      onMessage: inbox.onMessage,
      onStopped: (e) => void stopped.push(e),
      logger,
      tuning: { reconnectBaseMs: 50, retryBaseMs: 50 },
    });
    running.push(w);
    return w;
  }

  it('emits only mail that arrives after the source started, with its attachments', async () => {
    await dovecot.append(ALICE.user, 'INBOX', message('old news'));
    const inbox = new Inbox();
    const w = watcher(1, new InMemoryEmailCursorStore(), inbox);
    await w.start();
    const pdf = Buffer.from('%PDF-1.4\n% a tiny test file\n');
    await dovecot.append(ALICE.user, 'INBOX', message('Invoice 42', { name: 'invoice-42.pdf', type: 'application/pdf', bytes: pdf }));
    await inbox.waitFor(1);
    const [event] = inbox.events;
    expect(event).toMatchObject({
      eventType: 'email_received',
      sourceId: 1,
      mailbox: 'INBOX',
      subject: 'Invoice 42',
      from: 'sender@example.test',
      to: [ALICE.user],
      messageId: '<Invoice42@example.test>',
      oversized: false,
    });
    expect(event!.eventId).toMatch(/^email_1_[0-9a-f]{24}$/);
    expect(event!.text.trim()).toBe('Body of Invoice 42');
    expect(event!.attachments).toHaveLength(1);
    expect(event!.attachments[0]).toMatchObject({ name: 'invoice-42.pdf', mimeType: 'application/pdf', size: pdf.length });
    expect(event!.attachments[0]!.content.equals(pdf)).toBe(true);
    expect(inbox.events.map((e) => e.subject)).not.toContain('old news');
  });

  it('picks up after a restart from the saved cursor: nothing missed, nothing repeated', async () => {
    const cursors = new InMemoryEmailCursorStore();
    const first = new Inbox();
    const w1 = watcher(2, cursors, first);
    await w1.start();
    await dovecot.append(ALICE.user, 'INBOX', message('before stop'));
    await first.waitFor(1);
    await w1.stop();
    await dovecot.append(ALICE.user, 'INBOX', message('while stopped 1'));
    await dovecot.append(ALICE.user, 'INBOX', message('while stopped 2'));
    const second = new Inbox();
    const w2 = watcher(2, cursors, second);
    await w2.start();
    await second.waitFor(2);
    expect(second.events.map((e) => e.subject)).toEqual(['while stopped 1', 'while stopped 2']);
  });

  it('reconnects after the server dropped the connection and reads what arrived meanwhile', async () => {
    const inbox = new Inbox();
    const lines: string[] = [];
    const logger: Logger = { ...silentLogger, info: (m) => void lines.push(m), child: () => logger };
    const w = watcher(8, new InMemoryEmailCursorStore(), inbox, ['INBOX'], {}, [], logger);
    await w.start();
    await dovecot.kick(ALICE.user);
    await dovecot.append(ALICE.user, 'INBOX', message('after the cut'));
    await inbox.waitFor(1);
    expect(inbox.events.map((e) => e.subject)).toEqual(['after the cut']);
    expect(lines).toContain('imap connection closed; reconnecting');
  });

  it('watches every mailbox of label_ids', async () => {
    await dovecot.createMailbox(ALICE.user, 'Invoices');
    const inbox = new Inbox();
    const w = watcher(3, new InMemoryEmailCursorStore(), inbox, ['INBOX', 'Invoices']);
    await w.start();
    await dovecot.append(ALICE.user, 'Invoices', message('filed invoice'));
    await inbox.waitFor(1);
    expect(inbox.events[0]).toMatchObject({ mailbox: 'Invoices', subject: 'filed invoice' });
  });

  it('delivers a message again after the handler failed, with the same event id, and then never again', async () => {
    const inbox = new Inbox();
    const w = watcher(4, new InMemoryEmailCursorStore(), inbox);
    await w.start();
    inbox.failNext = 1;
    const uid = await dovecot.append(ALICE.user, 'INBOX', message('retry me'));
    await inbox.waitFor(1);
    expect(inbox.attempts.map((e) => [e.subject, e.uid, e.eventId])).toEqual([
      ['retry me', uid, inbox.events[0]!.eventId],
      ['retry me', uid, inbox.events[0]!.eventId],
    ]);
    await w.checkNow();
    expect(inbox.events.filter((e) => e.subject === 'retry me')).toHaveLength(1);
  });

  it('reports a message past the size limit without reading it', async () => {
    const inbox = new Inbox();
    const w = new EmailSourceWatcher({
      sourceId: 5,
      settings: { emailAddress: ALICE.user, mailboxes: ['INBOX'] },
      server,
      cursors: new InMemoryEmailCursorStore(),
      onMessage: inbox.onMessage,
      onStopped: () => undefined,
      logger: silentLogger,
      tuning: { maxMessageBytes: 1024 },
    });
    running.push(w);
    await w.start();
    await dovecot.append(ALICE.user, 'INBOX', message('huge', { name: 'big.bin', type: 'application/octet-stream', bytes: Buffer.alloc(8192, 7) }));
    await inbox.waitFor(1);
    expect(inbox.events[0]).toMatchObject({ subject: 'huge', oversized: true, attachments: [] });
  });

  it('refuses a wrong login and a missing mailbox with their kinds', async () => {
    await expect(watcher(6, new InMemoryEmailCursorStore(), new Inbox(), ['INBOX'], { password: 'wrong' }).start()).rejects.toMatchObject({ kind: 'auth' });
    await expect(watcher(7, new InMemoryEmailCursorStore(), new Inbox(), ['INBOX', 'NoSuchBox']).start()).rejects.toMatchObject({ kind: 'mailbox_missing', mailbox: 'NoSuchBox' });
  });
});
