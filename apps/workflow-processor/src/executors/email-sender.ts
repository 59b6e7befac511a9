import addressparser from 'nodemailer/lib/addressparser';

/**
 * Which senders an email_send_task may name in `from` (MAIL_FROM_ALLOWED):
 * entries are addresses (`billing@docflow.example`) or whole domains
 * (`@docflow.example`), compared without case. Without it a workflow, or a
 * webhook caller whose input fills a templated `from`, could send platform
 * mail as anyone the relay lets through.
 */
export class SenderAllowList {
  private readonly addresses = new Set<string>();
  private readonly domains = new Set<string>();

  constructor(entries: readonly string[]) {
    for (const raw of entries) {
      const entry = raw.trim().toLowerCase();
      if (entry.startsWith('@')) this.domains.add(entry.slice(1));
      else this.addresses.add(entry);
    }
  }

  /** The sender's address when `from` names exactly one allowed address, else undefined. */
  check(from: string): string | undefined {
    const parsed = addressparser(from, { flatten: false });
    const only = parsed.length === 1 ? parsed[0] : undefined;
    if (only === undefined || 'group' in only) return undefined;
    // A display name that is itself an address would show another sender than the one that sends.
    if (only.name.includes('@')) return undefined;
    const address = (only.address ?? '').toLowerCase();
    const at = address.lastIndexOf('@');
    if (at <= 0 || address.indexOf('@') !== at) return undefined;
    return this.addresses.has(address) || this.domains.has(address.slice(at + 1)) ? address : undefined;
  }
}

/** The address inside `Name <address>` (or a bare address), for the default allow list. */
export function addressOf(mailbox: string): string | undefined {
  const first = addressparser(mailbox, { flatten: true })[0];
  return first && first.address.includes('@') ? first.address : undefined;
}
