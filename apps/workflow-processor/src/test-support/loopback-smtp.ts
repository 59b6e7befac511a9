import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
}

/**
 * An SMTP relay on 127.0.0.1 for tests. Like a relay that authenticates one
 * mailbox, it refuses any sender other than `mailbox`.
 */
export class LoopbackSmtp {
  readonly received: ReceivedMail[] = [];

  private constructor(private readonly server: SMTPServer, readonly url: string) {}

  static async start(mailbox: string): Promise<LoopbackSmtp> {
    const holder: { smtp?: LoopbackSmtp } = {};
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onMailFrom(address, _session, callback) {
        if (address.address !== mailbox) callback(Object.assign(new Error(`5.7.1 Sender ${address.address} is not owned by the authenticated user`), { responseCode: 553 }));
        else callback();
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

  private deliver(mail: ReceivedMail): void {
    this.received.push(mail);
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
