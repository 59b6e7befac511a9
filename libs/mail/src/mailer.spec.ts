import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { SMTPServer } from 'smtp-server';
import type { Logger, LogMeta } from '@docflow/service-kit';
import { createMailer, InvalidMailError } from './mailer';

interface Line {
  message: string;
  meta?: LogMeta;
}

function recordingLogger(lines: Line[]): Logger {
  const log = (message: string, meta?: LogMeta) => lines.push({ message, meta });
  const logger: Logger = { debug: log, info: log, warn: log, error: log, child: () => logger };
  return logger;
}

describe('createMailer without SMTP (outbox)', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'docflow-outbox-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes each mail as an .eml file and logs the file and recipients, never the body', async () => {
    const lines: Line[] = [];
    const outbox = path.join(dir, 'nested', 'outbox');
    const mailer = createMailer({ outboxDir: outbox, from: 'Docflow <no-reply@docflow.local>', logger: recordingLogger(lines) });
    expect(mailer.kind).toBe('outbox');

    const result = await mailer.send({ to: ['alice@example.com'], cc: ['Bob <bob@example.com>'], subject: 'Hello there', text: 'secret body 424242' });

    expect(result.accepted).toEqual(['alice@example.com', 'bob@example.com']);
    expect(result.rejected).toEqual([]);
    expect(result.messageId).toMatch(/^<.+@docflow\.local>$/);
    const files = await readdir(outbox);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/\.eml$/);
    const eml = await readFile(path.join(outbox, files[0]!), 'utf8');
    expect(eml).toContain('From: Docflow <no-reply@docflow.local>');
    expect(eml).toContain('To: alice@example.com');
    expect(eml).toContain('Subject: Hello there');
    expect(eml).toContain('secret body 424242');

    expect(lines).toHaveLength(1);
    expect(lines[0]!.meta).toMatchObject({ file: path.join(outbox, files[0]!), recipients: ['alice@example.com', 'bob@example.com'] });
    expect(JSON.stringify(lines)).not.toContain('424242');
  });

  it('uses the sender given with the message over the default', async () => {
    const mailer = createMailer({ outboxDir: dir, from: 'default@docflow.local', logger: recordingLogger([]) });
    await mailer.send({ to: ['x@example.com'], subject: 's', html: '<p>hi</p>', from: 'Ops <ops@docflow.local>' });
    const [file] = await readdir(dir);
    expect(await readFile(path.join(dir, file!), 'utf8')).toContain('From: Ops <ops@docflow.local>');
  });

  it('refuses a mail without recipients, subject or body', async () => {
    const mailer = createMailer({ outboxDir: dir, from: 'a@docflow.local', logger: recordingLogger([]) });
    await expect(mailer.send({ to: [], subject: 's', text: 't' })).rejects.toBeInstanceOf(InvalidMailError);
    await expect(mailer.send({ to: ['x@example.com'], subject: '  ', text: 't' })).rejects.toThrow('subject');
    await expect(mailer.send({ to: ['x@example.com'], subject: 's' })).rejects.toThrow('body');
    expect(await readdir(dir)).toEqual([]);
  });

  it('verify creates the outbox directory', async () => {
    const outbox = path.join(dir, 'fresh');
    const mailer = createMailer({ outboxDir: outbox, from: 'a@docflow.local', logger: recordingLogger([]) });
    await mailer.verify();
    expect(await readdir(outbox)).toEqual([]);
  });
});

describe('createMailer with SMTP', () => {
  const received: { from: string; to: string[]; raw: string }[] = [];
  let server: SMTPServer;
  let url: string;

  beforeAll(async () => {
    server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onRcptTo(address, _session, callback) {
        if (address.address.endsWith('@rejected.example')) callback(new Error('no such mailbox'));
        else callback();
      },
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
          received.push({ from, to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString('utf8') });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('delivers through the server and reports accepted and rejected recipients', async () => {
    const lines: Line[] = [];
    const mailer = createMailer({ smtpUrl: url, outboxDir: '/nonexistent', from: 'Docflow <no-reply@docflow.local>', logger: recordingLogger(lines) });
    expect(mailer.kind).toBe('smtp');
    await mailer.verify();

    const result = await mailer.send({ to: ['carol@example.com', 'ghost@rejected.example'], bcc: ['dave@example.com'], subject: 'Report', text: 'body 987654' });
    mailer.close();

    expect(result.accepted.sort()).toEqual(['carol@example.com', 'dave@example.com']);
    expect(result.rejected).toEqual(['ghost@rejected.example']);
    expect(received).toHaveLength(1);
    expect(received[0]!.from).toBe('no-reply@docflow.local');
    expect(received[0]!.to.sort()).toEqual(['carol@example.com', 'dave@example.com']);
    expect(received[0]!.raw).toContain('body 987654');
    expect(received[0]!.raw).not.toContain('dave@example.com'); // Bcc stays out of the headers
    expect(JSON.stringify(lines)).not.toContain('987654');
  });

  it('verify fails when no server answers', async () => {
    const mailer = createMailer({ smtpUrl: 'smtp://127.0.0.1:1', outboxDir: '/nonexistent', from: 'a@docflow.local', logger: recordingLogger([]), timeouts: { connectionMs: 2000 } });
    await expect(mailer.verify()).rejects.toThrow();
    mailer.close();
  });
});
