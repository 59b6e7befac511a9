/** Spec 2.16: an e-mail source is created with `email_address` and optional `label_ids` (default `[INBOX]`). */
export interface EmailSourceSettings {
  emailAddress: string;
  /** IMAP mailboxes to watch (Gmail's labels are IMAP mailboxes). */
  mailboxes: string[];
}

export const DEFAULT_LABEL_IDS: readonly string[] = ['INBOX'];
const MAX_MAILBOXES = 20;

/** The settings of a new e-mail source, or the problems as strings for `details.errors` (spec 7). */
export function parseEmailSourceSettings(input: { email_address?: unknown; label_ids?: unknown }): { settings: EmailSourceSettings } | { errors: string[] } {
  const errors: string[] = [];
  const address = typeof input.email_address === 'string' ? input.email_address.trim() : '';
  if (!address || address.length > 254 || !/^[^\s@]+@[^\s@]+$/.test(address)) errors.push('email_address must be an e-mail address');
  let mailboxes = [...DEFAULT_LABEL_IDS];
  if (input.label_ids !== undefined && input.label_ids !== null) {
    const labels = input.label_ids;
    if (!Array.isArray(labels) || labels.length === 0 || labels.length > MAX_MAILBOXES) {
      errors.push(`label_ids must be a list of 1 to ${MAX_MAILBOXES} mailbox names`);
    } else if (labels.some((l) => typeof l !== 'string' || l.trim() === '' || l.length > 200 || /[\0\r\n]/.test(l))) {
      errors.push('label_ids must hold mailbox names (text without line breaks, at most 200 characters)');
    } else {
      mailboxes = [...new Set((labels as string[]).map((l) => l.trim()))];
    }
  }
  return errors.length ? { errors } : { settings: { emailAddress: address, mailboxes } };
}
