/** How far a mailbox has been read: IMAP UIDs only grow while UIDVALIDITY stays the same (RFC 9051 2.3.1.1). */
export interface MailboxCursor {
  uidValidity: string;
  lastUid: number;
}

/**
 * Where the watcher keeps its place per (source, mailbox), so a restart
 * neither misses nor repeats a message. The public API backs it with a
 * table such as `email_source_cursors (source_id integer, mailbox text,
 * uid_validity text, last_uid bigint, PRIMARY KEY (source_id, mailbox))`
 * (event-bus phase 2). A cursor is saved only after `onMessage` resolved for
 * that message, so delivery is at least once; the event id is stable
 * (source, mailbox, UIDVALIDITY, UID), which lets the event log drop a
 * repeat with a unique index.
 */
export interface EmailCursorStore {
  get(sourceId: number, mailbox: string): Promise<MailboxCursor | null>;
  set(sourceId: number, mailbox: string, cursor: MailboxCursor): Promise<void>;
}

export class InMemoryEmailCursorStore implements EmailCursorStore {
  readonly cursors = new Map<string, MailboxCursor>();

  async get(sourceId: number, mailbox: string): Promise<MailboxCursor | null> {
    return this.cursors.get(`${sourceId}\u0000${mailbox}`) ?? null;
  }

  async set(sourceId: number, mailbox: string, cursor: MailboxCursor): Promise<void> {
    this.cursors.set(`${sourceId}\u0000${mailbox}`, cursor);
  }
}
