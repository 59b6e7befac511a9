import { createHash } from 'node:crypto';
import { simpleParser, type AddressObject } from 'mailparser';

export const EMAIL_RECEIVED = 'email_received' as const;

export interface EmailAttachment {
  name: string;
  mimeType: string;
  size: number;
  content: Buffer;
}

/** Where a message was found. */
export interface MessageLocation {
  sourceId: number;
  /** The source's `email_address`. */
  emailAddress: string;
  mailbox: string;
  uidValidity: string;
  uid: number;
}

/** One new message in a watched mailbox (spec 2.16's staging e-mail source). */
export interface EmailReceivedEvent extends MessageLocation {
  eventType: typeof EMAIL_RECEIVED;
  /** Stable for the message: the same message read twice gives the same id. */
  eventId: string;
  messageId: string | null;
  from: string | null;
  to: string[];
  subject: string;
  /** ISO 8601, from the Date header. */
  date: string | null;
  /** The plain text body, cut to `maxTextChars`. */
  text: string;
  attachments: EmailAttachment[];
  /** The message was larger than the limit: no text and no attachments were read. */
  oversized: boolean;
}

export interface ParseLimits {
  /** Default 20 000. */
  maxTextChars?: number;
}

/** `email_<source>_<hash of mailbox, UIDVALIDITY, UID>`: one id per message per source. */
export function emailEventId(location: MessageLocation): string {
  const digest = createHash('sha256').update(`${location.mailbox}\u0000${location.uidValidity}\u0000${location.uid}`).digest('hex').slice(0, 24);
  return `email_${location.sourceId}_${digest}`;
}

function addresses(value: AddressObject | AddressObject[] | undefined): string[] {
  const list = Array.isArray(value) ? value : value ? [value] : [];
  return list.flatMap((a) => a.value.map((v) => v.address ?? '').filter((s) => s.length > 0));
}

/** Parses a raw RFC 5322 message into the event (attachments with their bytes). */
export async function parseEmailMessage(raw: Buffer, location: MessageLocation, limits: ParseLimits = {}): Promise<EmailReceivedEvent> {
  const parsed = await simpleParser(raw, { skipHtmlToText: false, skipTextToHtml: true, skipImageLinks: true });
  const maxText = limits.maxTextChars ?? 20_000;
  return {
    ...location,
    eventType: EMAIL_RECEIVED,
    eventId: emailEventId(location),
    messageId: parsed.messageId ?? null,
    from: addresses(parsed.from)[0] ?? null,
    to: addresses(parsed.to),
    subject: parsed.subject ?? '',
    date: parsed.date && !Number.isNaN(parsed.date.getTime()) ? parsed.date.toISOString() : null,
    text: (parsed.text ?? '').slice(0, maxText),
    attachments: parsed.attachments.map((a, i) => ({
      name: a.filename && a.filename.trim() ? a.filename.trim() : `attachment-${i + 1}`,
      mimeType: a.contentType || 'application/octet-stream',
      size: a.content.length,
      content: a.content,
    })),
    oversized: false,
  };
}

/** The event of a message too large to read: its place, no content. */
export function oversizedEmailEvent(location: MessageLocation, envelope: { messageId?: string; subject?: string; from?: string | null; date?: Date }): EmailReceivedEvent {
  return {
    ...location,
    eventType: EMAIL_RECEIVED,
    eventId: emailEventId(location),
    messageId: envelope.messageId ?? null,
    from: envelope.from ?? null,
    to: [],
    subject: envelope.subject ?? '',
    date: envelope.date && !Number.isNaN(envelope.date.getTime()) ? envelope.date.toISOString() : null,
    text: '',
    attachments: [],
    oversized: true,
  };
}

/**
 * The payload subscription filters match against (spec 2.17), without any
 * bytes: the message's headers and each attachment's name, type and size.
 */
export function emailEventPayload(event: EmailReceivedEvent): Record<string, unknown> {
  return {
    event_id: event.eventId,
    event_type: event.eventType,
    email_address: event.emailAddress,
    mailbox: event.mailbox,
    message_id: event.messageId,
    from: event.from,
    to: event.to,
    subject: event.subject,
    date: event.date,
    attachment_count: event.attachments.length,
    attachments: event.attachments.map((a) => ({ name: a.name, mime_type: a.mimeType, size: a.size })),
    oversized: event.oversized,
  };
}

/**
 * A matched subscription's workflow inputs (the e-mail counterpart of 4.10's
 * drive inputs): `trigger_type: event`, `event_source: email`, the message's
 * headers and text, and the attachments as documents already stored for the
 * source's owner (`documents` in the order of `event.attachments`).
 */
export function emailWorkflowInputs(event: EmailReceivedEvent, documentIds: readonly number[]): Record<string, unknown> {
  return {
    trigger_type: 'event',
    event_id: event.eventId,
    event_source: 'email',
    event_type: event.eventType,
    email_address: event.emailAddress,
    mailbox: event.mailbox,
    message_id: event.messageId,
    from: event.from,
    to: event.to,
    subject: event.subject,
    date: event.date,
    text: event.text,
    attachments: event.attachments.map((a, i) => ({ name: a.name, mime_type: a.mimeType, size: a.size, document_id: documentIds[i] ?? null })),
    attachment_document_ids: documentIds,
  };
}
