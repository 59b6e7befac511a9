import jwt from 'jsonwebtoken';
import request from 'supertest';
import type express from 'express';
import { createMailer, Mailer } from '@docflow/mail';
import type { ApiFeature } from '../../platform';
import { seedDemoUsers } from '../seed/demo-users';
import { LoopbackSmtp } from '@docflow/testing';
import { stepUpCodeIn } from '../../test-support/step-up-mail';
import { buildTestApp, LogLine, openTestBed, recordingLogger, TestBed } from '../../test-support/test-app';
import { UsersRepository } from '../users/users.repository';
import { UsersService } from '../users/users.service';
import { currentUser } from './auth-user';
import type { AuthGuards } from './guards';
import { hashStepUpCode } from './step-up.service';

let bed: TestBed;
let smtp: LoopbackSmtp;
let mailer: Mailer;
let app: express.Express;
const lines: LogLine[] = [];

interface ErrorBody {
  error: { status: number; name: string; message: string; details: Record<string, unknown> };
}

/** Routes that only tests mount: a sensitive operation behind step-up, and an admin-only one. */
const guardedRoutes: ApiFeature<{ auth: AuthGuards }> = {
  name: 'test-guards',
  register(api, ctx) {
    api.post('/test/sensitive', ctx.auth.requireAuth, ctx.auth.requireStepUp, (req, res) => {
      res.json({ ok: true, userId: currentUser(req).id });
    });
    api.get('/test/admin-only', ctx.auth.requireAuth, ctx.auth.requireRole('super_admin'), (_req, res) => {
      res.json({ ok: true });
    });
  },
};

async function login(identifier: string, password: string): Promise<string> {
  const res = await request(app).post('/api/auth/local').send({ identifier, password });
  expect(res.status).toBe(200);
  return (res.body as { jwt: string }).jwt;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Asks for a code and returns it, read from the mail the loopback server received. */
async function requestCode(token: string): Promise<string> {
  const res = await request(app).post('/api/auth/step-up').set(bearer(token));
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ message: expect.any(String) });
  return stepUpCodeIn(await smtp.nextMail());
}

function verify(token: string, code: unknown) {
  return request(app).post('/api/auth/step-up/verify').set(bearer(token)).send({ code });
}

/** A 6-digit code different from `code`. */
function wrongCode(code: string): string {
  return String((Number(code) + 1) % 1_000_000).padStart(6, '0');
}

beforeAll(async () => {
  bed = await openTestBed();
  await seedDemoUsers(new UsersService(new UsersRepository(bed.database)), recordingLogger());
  smtp = await LoopbackSmtp.start();
  const logger = recordingLogger(lines);
  mailer = createMailer({ smtpUrl: smtp.url, outboxDir: bed.outboxDir, from: 'Docflow <no-reply@docflow.local>', logger });
  app = buildTestApp(bed, { mailer, logger, features: [guardedRoutes] });
});

// Each test starts with no code requested and no wrong code entered in the shared windows (STEP_UP_REQUESTS, STEP_UP_FAILURES).
beforeEach(async () => {
  await bed.database.query('DELETE FROM rate_limit_counters');
});

/** Ends the current window of the shared counters whose key starts with `prefix`, as if its time had passed. */
async function endWindows(prefix: string): Promise<void> {
  await bed.database.query("UPDATE rate_limit_counters SET expires_at = now() - interval '1 second' WHERE key LIKE $1", [`${prefix}%`]);
}

afterAll(async () => {
  mailer?.close();
  await smtp?.stop();
  await bed?.close();
});

describe('step-up', () => {
  it('mails a 6-digit code to the caller, stores only its HMAC, and verifying it grants 300 seconds', async () => {
    const token = await login('alice', 'Alice#Pass123');
    const res = await request(app).post('/api/auth/step-up').set(bearer(token));
    expect(res.status).toBe(200);
    const mail = await smtp.nextMail();
    expect(mail.to).toEqual(['alice@docflow.local']);
    expect(mail.from).toBe('no-reply@docflow.local');
    const code = stepUpCodeIn(mail);
    expect(code).toMatch(/^\d{6}$/);

    const rows = (await bed.database.query(
      "SELECT c.code_hash, c.attempts, c.expires_at > now() + interval '9 minutes' AS long_enough FROM step_up_codes c JOIN users u ON u.id = c.user_id WHERE u.username = 'alice'",
    )) as {
      code_hash: string;
      attempts: number;
      long_enough: boolean;
    }[];
    expect(rows).toHaveLength(1);
    expect(rows[0]!.code_hash).not.toContain(code);
    expect(rows[0]!.code_hash).toBe(hashStepUpCode(code, 'test-jwt-secret-0123456789abcdef'));
    expect(rows[0]!.long_enough).toBe(true);

    const ok = await verify(token, code);
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ message: expect.any(String), expiresIn: 300 });

    const { jti } = jwt.decode(token) as { jti: string };
    const grants = (await bed.database.query('SELECT extract(epoch FROM expires_at - now()) AS left FROM step_up_grants WHERE jti = $1', [jti])) as { left: string }[];
    expect(Number(grants[0]!.left)).toBeGreaterThan(290);
    expect(Number(grants[0]!.left)).toBeLessThanOrEqual(300);

    expect(JSON.stringify(lines)).not.toContain(code);
    expect(lines.find((l) => l.message === 'auth.step_up.verified')?.meta).toMatchObject({ action: 'auth.step_up.verified', userId: expect.any(Number) });
  });

  it('accepts a code once', async () => {
    const token = await login('alice', 'Alice#Pass123');
    const code = await requestCode(token);
    await verify(token, code).expect(200);
    const again = await verify(token, code);
    expect(again.status).toBe(400);
    expect((again.body as ErrorBody).error.name).toBe('BadRequestError');
  });

  it('refuses a code that is not 6 digits with details.errors', async () => {
    const token = await login('alice', 'Alice#Pass123');
    for (const bad of ['12345', '1234567', 'abcdef', 123456, undefined]) {
      const res = await verify(token, bad);
      expect(res.status).toBe(400);
      expect((res.body as ErrorBody).error.details.errors).toEqual(['code must be a string of 6 digits']);
    }
  });

  it('refuses a wrong code and counts down the attempts left', async () => {
    const token = await login('bob', 'Bob#Pass123');
    const code = await requestCode(token);
    const res = await verify(token, wrongCode(code));
    expect(res.status).toBe(400);
    expect((res.body as ErrorBody).error).toMatchObject({ name: 'BadRequestError', message: 'Invalid verification code', details: { attemptsRemaining: 4 } });
    await verify(token, code).expect(200);
  });

  it('kills a code after 5 wrong tries, even when the right one follows, and answers 429 until the hour ends', async () => {
    const token = await login('bob', 'Bob#Pass123');
    const code = await requestCode(token);
    const remaining: unknown[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await verify(token, wrongCode(code));
      expect(res.status).toBe(400);
      remaining.push((res.body as ErrorBody).error.details.attemptsRemaining);
    }
    expect(remaining).toEqual([4, 3, 2, 1, 0]);
    expect(lines.some((l) => l.message === 'auth.step_up.locked')).toBe(true);
    const right = await verify(token, code);
    expect(right.status).toBe(429);
    expect((right.body as ErrorBody).error).toMatchObject({ status: 429, name: 'TooManyRequestsError', details: { retry_after: expect.any(Number) } });
    expect(Number(right.headers['retry-after'])).toBeGreaterThan(3000);

    await endWindows('step_up:');
    const fresh = await requestCode(token);
    await verify(token, fresh).expect(200);
  });

  it('counts wrong codes per user across codes: a new code does not give five more tries', async () => {
    const token = await login('bob', 'Bob#Pass123');
    const first = await requestCode(token);
    for (let i = 0; i < 3; i++) await verify(token, wrongCode(first)).expect(400);
    await endWindows('step_up:request:30:');
    const second = await requestCode(token);
    const fourth = await verify(token, wrongCode(second));
    expect((fourth.body as ErrorBody).error.details.attemptsRemaining).toBe(1);
    await verify(token, wrongCode(second)).expect(400);
    // Five wrong codes this hour, over two codes: the right one is refused, and so is a third code's.
    expect((await verify(token, second)).status).toBe(429);
    await endWindows('step_up:request:30:');
    const third = await requestCode(token);
    expect((await verify(token, third)).status).toBe(429);
    // Another user is not affected.
    const alice = await login('alice', 'Alice#Pass123');
    await verify(alice, await requestCode(alice)).expect(200);
  });

  it('sends at most one code per 30 seconds and five an hour (429 with Retry-After, no mail)', async () => {
    const token = await login('alice', 'Alice#Pass123');
    const mailsBefore = smtp.received.length;
    await requestCode(token);
    const again = await request(app).post('/api/auth/step-up').set(bearer(token));
    expect(again.status).toBe(429);
    expect((again.body as ErrorBody).error).toMatchObject({ name: 'TooManyRequestsError', details: { retry_after: expect.any(Number) } });
    const wait = Number(again.headers['retry-after']);
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(30);
    for (let i = 0; i < 4; i++) {
      await endWindows('step_up:request:30:');
      await requestCode(token);
    }
    await endWindows('step_up:request:30:');
    const sixth = await request(app).post('/api/auth/step-up').set(bearer(token));
    expect(sixth.status).toBe(429);
    expect(Number(sixth.headers['retry-after'])).toBeGreaterThan(30);
    expect(smtp.received.length).toBe(mailsBefore + 5);
  });

  it('invalidates the previous code when a new one is requested', async () => {
    const token = await login('alice', 'Alice#Pass123');
    const first = await requestCode(token);
    await endWindows('step_up:request:30:');
    const second = await requestCode(token);
    if (first !== second) expect((await verify(token, first)).status).toBe(400);
    await verify(token, second).expect(200);
  });

  it('refuses an expired code', async () => {
    const token = await login('alice', 'Alice#Pass123');
    const code = await requestCode(token);
    await bed.database.query("UPDATE step_up_codes SET expires_at = now() - interval '1 second'");
    const res = await verify(token, code);
    expect(res.status).toBe(400);
  });

  it('needs a token', async () => {
    expect((await request(app).post('/api/auth/step-up')).status).toBe(401);
    expect((await request(app).post('/api/auth/step-up/verify').send({ code: '123456' })).status).toBe(401);
  });

  it('answers 503 and keeps no code when the mail cannot be sent', async () => {
    const deadMailer = createMailer({ smtpUrl: 'smtp://127.0.0.1:1', outboxDir: bed.outboxDir, from: 'a@docflow.local', logger: recordingLogger(), timeouts: { connectionMs: 2000 } });
    const broken = buildTestApp(bed, { mailer: deadMailer });
    const token = await login('admin', 'Admin#Pass123');
    const res = await request(broken).post('/api/auth/step-up').set(bearer(token));
    deadMailer.close();
    expect(res.status).toBe(503);
    expect((res.body as ErrorBody).error.name).toBe('ServiceUnavailableError');
    const rows = (await bed.database.query("SELECT 1 FROM step_up_codes c JOIN users u ON u.id = c.user_id WHERE u.username = 'admin'")) as unknown[];
    expect(rows).toHaveLength(0);
  });
});

describe('requireStepUp', () => {
  const sensitive = (token: string, header?: string) => {
    const req = request(app).post('/api/test/sensitive').set(bearer(token));
    return header === undefined ? req : req.set('X-Step-Up-Verified', header);
  };

  it('is 403 without a grant, even with the header', async () => {
    const token = await login('alice', 'Alice#Pass123');
    for (const res of [await sensitive(token), await sensitive(token, 'true')]) {
      expect(res.status).toBe(403);
      expect((res.body as ErrorBody).error).toMatchObject({ status: 403, name: 'ForbiddenError', message: 'Step-up verification required' });
    }
  });

  it('needs both the header and a live grant for the presented token', async () => {
    const token = await login('alice', 'Alice#Pass123');
    const otherSession = await login('alice', 'Alice#Pass123');
    await verify(token, await requestCode(token)).expect(200);

    expect((await sensitive(token)).status).toBe(403);
    expect((await sensitive(token, 'false')).status).toBe(403);
    const ok = await sensitive(token, 'true');
    expect(ok.status).toBe(200);
    expect((ok.body as { ok: boolean }).ok).toBe(true);
    // The grant belongs to the token that verified, not to the user's other sessions.
    expect((await sensitive(otherSession, 'true')).status).toBe(403);

    const { jti } = jwt.decode(token) as { jti: string };
    await bed.database.query("UPDATE step_up_grants SET expires_at = now() - interval '1 second' WHERE jti = $1", [jti]);
    expect((await sensitive(token, 'true')).status).toBe(403);
  });

  it('drops the grant on logout', async () => {
    const token = await login('bob', 'Bob#Pass123');
    await verify(token, await requestCode(token)).expect(200);
    await request(app).post('/api/auth/logout').set(bearer(token)).expect(200);
    const { jti } = jwt.decode(token) as { jti: string };
    expect((await bed.database.query('SELECT 1 FROM step_up_grants WHERE jti = $1', [jti])) as unknown[]).toHaveLength(0);
  });
});

describe('requireRole', () => {
  it('lets a super administrator through and refuses a user with 403', async () => {
    const admin = await login('admin', 'Admin#Pass123');
    const alice = await login('alice', 'Alice#Pass123');
    await request(app).get('/api/test/admin-only').set(bearer(admin)).expect(200);
    const res = await request(app).get('/api/test/admin-only').set(bearer(alice));
    expect(res.status).toBe(403);
    expect((res.body as ErrorBody).error.name).toBe('ForbiddenError');
  });
});
