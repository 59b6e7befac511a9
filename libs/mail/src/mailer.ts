import { randomUUID } from 'node:crypto';
import { constants as fsConstants } from 'node:fs';
import { access, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nodemailer, { type SendMailOptions } from 'nodemailer';
import type { Logger } from '@docflow/service-kit';

/** One outgoing mail. At least one recipient across `to`, `cc` and `bcc`. */
export interface MailMessage {
  to: string[];
  cc?: string[];
  bcc?: string[];
  subject: string;
  text?: string;
  html?: string;
  /** Overrides the mailer's default sender. */
  from?: string;
}

export interface SendResult {
  messageId: string;
  accepted: string[];
  rejected: string[];
}

export interface Mailer {
  /** `smtp` when an SMTP server is configured, `outbox` when mails are written as .eml files. */
  readonly kind: 'smtp' | 'outbox';
  send(message: MailMessage): Promise<SendResult>;
  /** Resolves when mail can be sent (SMTP: connects and greets; outbox: the directory is writable). */
  verify(): Promise<void>;
  close(): void;
}

export interface MailerOptions {
  /** e.g. `smtp://127.0.0.1:2525` or `smtps://user:pass@smtp.example.com`. Unset: write to `outboxDir`. */
  smtpUrl?: string;
  outboxDir: string;
  /** Default sender, e.g. `Docflow <no-reply@docflow.local>`. */
  from: string;
  logger: Logger;
  /** SMTP timeouts in milliseconds. */
  timeouts?: { connectionMs?: number; greetingMs?: number; socketMs?: number };
}

/** Thrown for a message that cannot be sent as given (no recipient, no subject). */
export class InvalidMailError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidMailError';
  }
}

type Address = string | { address: string; name?: string };

function addressesOf(list: readonly Address[] | undefined): string[] {
  return (list ?? []).map((a) => (typeof a === 'string' ? a : a.address));
}

function recipientsOf(message: MailMessage): string[] {
  return [...message.to, ...(message.cc ?? []), ...(message.bcc ?? [])];
}

function checkMessage(message: MailMessage): void {
  if (recipientsOf(message).length === 0) throw new InvalidMailError('a mail needs at least one recipient');
  if (message.subject.trim() === '') throw new InvalidMailError('a mail needs a subject');
  if (message.text === undefined && message.html === undefined) throw new InvalidMailError('a mail needs a text or html body');
}

function toNodemailer(message: MailMessage, defaultFrom: string): SendMailOptions {
  return {
    from: message.from ?? defaultFrom,
    to: message.to,
    cc: message.cc,
    bcc: message.bcc,
    subject: message.subject,
    text: message.text,
    html: message.html,
  };
}

/** Where the SMTP server is, without credentials, for log lines. */
function describeSmtp(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return 'smtp';
  }
}

function createSmtpMailer(smtpUrl: string, options: MailerOptions): Mailer {
  const transport = nodemailer.createTransport({
    url: smtpUrl,
    connectionTimeout: options.timeouts?.connectionMs ?? 10_000,
    greetingTimeout: options.timeouts?.greetingMs ?? 10_000,
    socketTimeout: options.timeouts?.socketMs ?? 30_000,
  });
  const server = describeSmtp(smtpUrl);
  return {
    kind: 'smtp',
    async send(message) {
      checkMessage(message);
      const info = await transport.sendMail(toNodemailer(message, options.from));
      const result = { messageId: info.messageId, accepted: addressesOf(info.accepted), rejected: addressesOf(info.rejected) };
      options.logger.info('mail sent', { server, messageId: result.messageId, accepted: result.accepted, rejected: result.rejected });
      return result;
    },
    async verify() {
      await transport.verify();
    },
    close() {
      transport.close();
    },
  };
}

function createOutboxMailer(options: MailerOptions): Mailer {
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' });
  const dir = path.resolve(options.outboxDir);
  return {
    kind: 'outbox',
    async send(message) {
      checkMessage(message);
      const info = await transport.sendMail(toNodemailer(message, options.from));
      const raw = info.message;
      if (!Buffer.isBuffer(raw)) throw new Error('outbox transport did not return a buffer');
      await mkdir(dir, { recursive: true });
      const file = path.join(dir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomUUID()}.eml`);
      await writeFile(file, raw, { mode: 0o600 });
      const accepted = [...info.envelope.to];
      options.logger.info('mail written to outbox', { file, messageId: info.messageId, recipients: accepted });
      return { messageId: info.messageId, accepted, rejected: [] };
    },
    async verify() {
      await mkdir(dir, { recursive: true });
      await access(dir, fsConstants.W_OK);
    },
    close() {
      transport.close();
    },
  };
}

/**
 * The one way Docflow sends mail: through SMTP when `smtpUrl` is set,
 * otherwise each mail becomes an `.eml` file under `outboxDir` (developer
 * machines). Log lines name the recipients and the file, never the body.
 */
export function createMailer(options: MailerOptions): Mailer {
  return options.smtpUrl ? createSmtpMailer(options.smtpUrl, options) : createOutboxMailer(options);
}
