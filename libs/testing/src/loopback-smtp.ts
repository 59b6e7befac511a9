import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
}

export interface LoopbackSmtpOptions {
  /**
   * Like a relay that authenticates one mailbox: any other sender is refused
   * at MAIL FROM with 553. Unset: every sender is taken.
   */
  mailbox?: string;
}

/** An SMTP server on 127.0.0.1 for tests: keeps every mail and lets a test await them. */
export class LoopbackSmtp {
  readonly received: ReceivedMail[] = [];
  private readonly waiters = new Set<() => void>();
  private consumed = 0;

  private constructor(
    private readonly server: SMTPServer,
    readonly url: string,
  ) {}

  static async start(options: LoopbackSmtpOptions = {}): Promise<LoopbackSmtp> {
    const holder: { smtp?: LoopbackSmtp } = {};
    const { mailbox } = options;
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onMailFrom(address, _session, callback) {
        if (mailbox !== undefined && address.address !== mailbox) {
          callback(Object.assign(new Error(`5.7.1 Sender ${address.address} is not owned by the authenticated user`), { responseCode: 553 }));
        } else callback();
      },
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
          holder.smtp?.deliver({ from, to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString('utf8') });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    holder.smtp = new LoopbackSmtp(server, `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`);
    return holder.smtp;
  }

  /** Resolves once `count` mails arrived in all; rejects after `ms`. */
  async waitForMessages(count: number, ms = 15000): Promise<void> {
    await this.until(
      () => this.received.length >= count,
      ms,
      () => `${count} mails not received within ${ms} ms (got ${this.received.length})`,
    );
  }

  /** The next mail not yet returned by nextMail, waiting at most `ms`. */
  async nextMail(ms = 5000): Promise<ReceivedMail> {
    await this.until(
      () => this.received.length > this.consumed,
      ms,
      () => `no mail within ${ms} ms`,
    );
    return this.received[this.consumed++]!;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private until(done: () => boolean, ms: number, failure: () => string): Promise<void> {
    if (done()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const check = () => {
        if (!done()) return;
        this.waiters.delete(check);
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(failure()));
      }, ms);
      this.waiters.add(check);
    });
  }

  private deliver(mail: ReceivedMail): void {
    this.received.push(mail);
    for (const check of [...this.waiters]) check();
  }
}

export interface MimePart {
  /** The media type alone, lower case (`text/plain`). */
  contentType: string;
  /** The decoded body (quoted-printable and base64 undone, UTF-8). */
  body: string;
}

/** The leaf parts of a raw message (one level of multipart), decoded, so tests can read each alternative. */
export function mimeParts(raw: string): MimePart[] {
  const [head = '', ...rest] = raw.split(/\r?\n\r?\n/);
  const body = rest.join('\r\n\r\n');
  const type = /^content-type:\s*([^;\r\n]+)/im.exec(head)?.[1]?.trim().toLowerCase() ?? 'text/plain';
  const boundary = /boundary="?([^";\r\n]+)"?/i.exec(head)?.[1];
  if (!type.startsWith('multipart/') || boundary === undefined) return [{ contentType: type, body: decodeBody(head, body) }];
  return body
    .split(`--${boundary}`)
    .slice(1)
    .filter((chunk) => !chunk.startsWith('--'))
    .flatMap((chunk) => mimeParts(chunk.replace(/^\r?\n/, '').replace(/\r?\n$/, '')));
}

function decodeBody(head: string, body: string): string {
  const encoding = /^content-transfer-encoding:\s*(\S+)/im.exec(head)?.[1]?.toLowerCase();
  if (encoding === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (encoding !== 'quoted-printable') return body;
  const soft = body.replace(/=\r?\n/g, '');
  const bytes: number[] = [];
  for (let i = 0; i < soft.length; i += 1) {
    const hex = soft[i] === '=' ? soft.slice(i + 1, i + 3) : '';
    if (/^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(soft[i] ?? '', 'utf8'));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}
