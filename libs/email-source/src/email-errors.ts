/**
 * Why an e-mail source stopped or could not start. `auth` and
 * `mailbox_missing` need the owner to act (the source becomes inactive with
 * `error_message`, spec 3.6); `connection` is retried with backoff;
 * `invalid_config` is a 400 when the source is created.
 */
export type EmailSourceErrorKind = 'auth' | 'mailbox_missing' | 'connection' | 'invalid_config';

export class EmailSourceError extends Error {
  override readonly name = 'EmailSourceError';

  constructor(
    readonly kind: EmailSourceErrorKind,
    message: string,
    /** The mailbox concerned, when there is one. */
    readonly mailbox?: string,
  ) {
    super(message);
  }
}
