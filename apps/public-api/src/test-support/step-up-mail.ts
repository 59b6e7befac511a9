import type { ReceivedMail } from '@docflow/testing';

/** The 6-digit code in a step-up mail. */
export function stepUpCodeIn(mail: ReceivedMail): string {
  const match = /verification code is (\d{6})/.exec(mail.raw);
  if (!match?.[1]) throw new Error('no step-up code in the mail');
  return match[1];
}
