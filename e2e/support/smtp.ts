import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
}

/** An SMTP server on 127.0.0.1 that keeps every message it is given. */
export class LoopbackSmtp {
  readonly received: ReceivedMail[] = [];
  private readonly waiters: { count: number; resolve: () => void }[] = [];

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

  /** Resolves once `count` messages arrived in all; rejects after `ms`. */
  waitForMessages(count: number, ms = 15000): Promise<void> {
    if (this.received.length >= count) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${count} mails not received within ${ms} ms (got ${this.received.length})`)), ms);
      this.waiters.push({ count, resolve: () => (clearTimeout(timer), resolve()) });
    });
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private deliver(mail: ReceivedMail): void {
    this.received.push(mail);
    for (const w of [...this.waiters]) {
      if (this.received.length >= w.count) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  }
}
