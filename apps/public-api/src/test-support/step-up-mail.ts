import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type express from 'express';
import request from 'supertest';
import type { ReceivedMail } from '@docflow/testing';

/** The 6-digit code in a step-up mail. */
export function stepUpCodeIn(mail: Pick<ReceivedMail, 'raw'>): string {
  const match = /verification code is (\d{6})/.exec(mail.raw);
  if (!match?.[1]) throw new Error('no step-up code in the mail');
  return match[1];
}

/** Asks for a code, reads it from the next mail, and verifies it: the token then carries a live step-up grant. */
export async function completeStepUp(app: express.Express, authorization: string, nextMail: () => Promise<Pick<ReceivedMail, 'raw'>>): Promise<void> {
  await request(app).post('/api/auth/step-up').set('authorization', authorization).expect(200);
  const code = stepUpCodeIn(await nextMail());
  await request(app).post('/api/auth/step-up/verify').set('authorization', authorization).send({ code }).expect(200);
}

/** The newest mail an outbox mailer wrote (SMTP_URL unset). */
export async function newestOutboxMail(outboxDir: string): Promise<{ raw: string }> {
  const mails = (await readdir(outboxDir)).filter((f) => f.endsWith('.eml')).sort();
  const newest = mails[mails.length - 1];
  if (!newest) throw new Error(`no mail in ${outboxDir}`);
  return { raw: await readFile(path.join(outboxDir, newest), 'utf8') };
}
