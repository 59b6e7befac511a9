import { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
}

/** An SMTP server on 127.0.0.1 for tests: keeps every mail and lets a test await the next one. */
export class LoopbackSmtp {
  readonly received: ReceivedMail[] = [];
  private waiters: ((mail: ReceivedMail) => void)[] = [];
  private consumed = 0;

  private constructor(private readonly server: SMTPServer, readonly url: string) {}

  static async start(): Promise<LoopbackSmtp> {
    const holder: { smtp?: LoopbackSmtp } = {};
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          const mailFrom = session.envelope.mailFrom;
          holder.smtp?.deliver({ from: mailFrom ? mailFrom.address : '', to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString('utf8') });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    holder.smtp = new LoopbackSmtp(server, `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`);
    return holder.smtp;
  }

  private deliver(mail: ReceivedMail): void {
    this.received.push(mail);
    const waiter = this.waiters.shift();
    if (waiter) {
      this.consumed++;
      waiter(mail);
    }
  }

  /** The next mail not yet returned by nextMail, waiting at most `timeoutMs`. */
  nextMail(timeoutMs = 5000): Promise<ReceivedMail> {
    const ready = this.received[this.consumed];
    if (ready) {
      this.consumed++;
      return Promise.resolve(ready);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`no mail within ${timeoutMs} ms`));
      }, timeoutMs);
      const waiter = (mail: ReceivedMail) => {
        clearTimeout(timer);
        resolve(mail);
      };
      this.waiters.push(waiter);
    });
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** The 6-digit code in a step-up mail. */
export function stepUpCodeIn(mail: ReceivedMail): string {
  const match = /verification code is (\d{6})/.exec(mail.raw);
  if (!match?.[1]) throw new Error('no step-up code in the mail');
  return match[1];
}
