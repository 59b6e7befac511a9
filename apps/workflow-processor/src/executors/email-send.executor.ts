import { InvalidMailError, type Mailer } from '@docflow/mail';
import type { ErrorType } from '@docflow/contracts';
import { raceAbort, RunAborted } from '../engine/abort';
import { htmlBodyOf, textAlternativeOf } from './email-body';
import { SenderAllowList } from './email-sender';
import { NodeFailure, type TaskExecutor } from './executor';

export interface EmailSendExecutorDeps {
  mailer: Pick<Mailer, 'send'>;
  /** MAIL_MAX_RECIPIENTS: to + cc + bcc of one message. */
  maxRecipients?: number;
  /** MAIL_FROM_ALLOWED (default: the MAIL_FROM address): what `from` may name; without it any `from` is refused. */
  allowedFrom?: readonly string[];
  now?: () => Date;
}

const HEADER_BREAK = /[\r\n]/;

/**
 * An address list after templating: a JSON array, a string holding a JSON
 * array (what `{{node.list}}` inside a longer text produces), or one address
 * as a plain string. Commas inside a plain string are not split: display
 * names may contain them (`"Doe, Jane" <jane@example.com>`).
 */
export function addressListOf(value: unknown, field: string): string[] {
  if (value === undefined || value === null) return [];
  let list: unknown = value;
  if (typeof value === 'string') {
    const text = value.trim();
    if (text === '') return [];
    if (text.startsWith('[')) {
      try {
        list = JSON.parse(text) as unknown;
      } catch {
        throw new NodeFailure('configuration_error', `${field} is not a valid JSON array of addresses`);
      }
    } else {
      list = [text];
    }
  }
  if (!Array.isArray(list)) throw new NodeFailure('configuration_error', `${field} must be an array of email addresses`);
  return list.map((item, i) => {
    if (typeof item !== 'string' || item.trim() === '' || HEADER_BREAK.test(item)) {
      throw new NodeFailure('configuration_error', `${field}[${i}] must be an email address`);
    }
    return item.trim();
  });
}

function textField(value: unknown, field: string, required: boolean): string | undefined {
  if (value === undefined || value === null || value === '') {
    if (required) throw new NodeFailure('configuration_error', `${field} is required`);
    return undefined;
  }
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

function booleanOf(value: unknown, fallback: boolean): boolean {
  if (value === undefined || value === null || value === '') return fallback;
  if (typeof value === 'boolean') return value;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new NodeFailure('configuration_error', 'html must be true or false');
}

interface SmtpError {
  code?: unknown;
  responseCode?: unknown;
  response?: unknown;
  message?: unknown;
}

/** How a relay or transport error is recorded: refusals are configuration problems, transport trouble is network or timeout. */
function mailFailure(err: unknown): NodeFailure {
  if (err instanceof InvalidMailError) return new NodeFailure('configuration_error', err.message);
  const e = (err ?? {}) as SmtpError;
  const code = typeof e.code === 'string' ? e.code : '';
  const responseCode = typeof e.responseCode === 'number' ? e.responseCode : undefined;
  const detail = typeof e.response === 'string' && e.response !== '' ? e.response : typeof e.message === 'string' ? e.message : String(err);
  let type: ErrorType = 'internal_error';
  if (responseCode !== undefined || ['EENVELOPE', 'EMESSAGE', 'EAUTH', 'ENOAUTH'].includes(code)) type = 'configuration_error';
  else if (code === 'ETIMEDOUT') type = 'timeout';
  else if (['ECONNECTION', 'ESOCKET', 'EDNS', 'ETLS', 'ECONNREFUSED'].includes(code)) type = 'network_error';
  const prefix = type === 'configuration_error' ? 'Mail relay rejected the message' : 'Mail could not be sent';
  return new NodeFailure(type, `${prefix}: ${detail}`);
}

/**
 * `email_send_task`: sends through SMTP_URL (or the outbox) with the
 * templated to/cc/bcc, subject and body; `html` (default true) picks the body
 * type. An HTML body has its template values escaped and a plain-text
 * alternative part; a `from` must be on the sender allow list. Output
 * `{sent, recipients, timestamp, message_id}`; any refused recipient or
 * relay error fails the node.
 */
export function createEmailSendExecutor(deps: EmailSendExecutorDeps): TaskExecutor {
  const now = deps.now ?? (() => new Date());
  const senders = new SenderAllowList(deps.allowedFrom ?? []);
  return async (ctx) => {
    const c = ctx.config;
    const to = addressListOf(c['to'], 'to');
    if (to.length === 0) throw new NodeFailure('configuration_error', 'to must list at least one recipient');
    const cc = addressListOf(c['cc'], 'cc');
    const bcc = addressListOf(c['bcc'], 'bcc');
    const recipients = to.length + cc.length + bcc.length;
    if (deps.maxRecipients !== undefined && recipients > deps.maxRecipients) {
      throw new NodeFailure('configuration_error', `to, cc and bcc name ${recipients} recipients; at most ${deps.maxRecipients} are allowed`);
    }
    const subject = textField(c['subject'], 'subject', true) ?? '';
    if (HEADER_BREAK.test(subject)) throw new NodeFailure('configuration_error', 'subject must be a single line');
    const body = textField(c['body'], 'body', true) ?? '';
    const from = textField(c['from'], 'from', false);
    if (from !== undefined && HEADER_BREAK.test(from)) throw new NodeFailure('configuration_error', 'from must be a single address');
    if (from !== undefined && senders.check(from) === undefined) {
      throw new NodeFailure('configuration_error', `from ${JSON.stringify(from.slice(0, 200))} is not an allowed sender (MAIL_FROM_ALLOWED)`);
    }
    const html = booleanOf(c['html'], true);
    const htmlBody = html ? (htmlBodyOf(ctx.rawConfig['body'], ctx.scope) ?? body) : undefined;
    const content = htmlBody !== undefined ? { html: htmlBody, text: textAlternativeOf(htmlBody) } : { text: body };
    let sent;
    try {
      sent = await raceAbort(deps.mailer.send({ to, cc, bcc, subject, ...content, ...(from ? { from } : {}) }), ctx.signal);
    } catch (err) {
      if (err instanceof RunAborted) throw err;
      throw mailFailure(err);
    }
    if (sent.rejected.length > 0) throw new NodeFailure('configuration_error', `Mail relay rejected recipients: ${sent.rejected.join(', ')}`);
    return { output: { sent: true, recipients: [...to, ...cc, ...bcc], timestamp: now().toISOString(), message_id: sent.messageId } };
  };
}
