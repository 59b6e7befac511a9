import jwt from 'jsonwebtoken';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import type express from 'express';
import { purgeExpiredAuthRecords } from './housekeeping';
import { seedDemoUsers } from '../seed/demo-users';
import { UsersRepository } from '../users/users.repository';
import { UsersService } from '../users/users.service';
import { buildTestApp, LogLine, openTestBed, recordingLogger, TEST_JWT_SECRET, TestBed } from '../../test-support/test-app';
import { JWT_ISSUER } from './tokens';

let bed: TestBed;
let app: express.Express;
const lines: LogLine[] = [];
let aliceId: number;

interface ErrorBody {
  error: { status: number; name: string; message: string; details: Record<string, unknown> };
}

async function login(target: express.Express, identifier: string, password: string): Promise<string> {
  const res = await request(target).post('/api/auth/local').send({ identifier, password });
  expect(res.status).toBe(200);
  return (res.body as { jwt: string }).jwt;
}

function b64url(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

function claimsFor(userId: number, extra: Record<string, unknown> = {}) {
  const now = Math.floor(Date.now() / 1000);
  return { sub: String(userId), jti: randomUUID(), role: 'user', iat: now, exp: now + 600, iss: JWT_ISSUER, ...extra };
}

beforeAll(async () => {
  bed = await openTestBed();
  await seedDemoUsers(new UsersService(new UsersRepository(bed.database)), recordingLogger());
  app = buildTestApp(bed, { logger: recordingLogger(lines) });
  const rows = (await bed.database.query("SELECT id FROM users WHERE username = 'alice'")) as { id: number }[];
  aliceId = rows[0]!.id;
});

afterAll(async () => {
  await bed?.close();
});

describe('POST /api/auth/local', () => {
  it('logs in by email, ignoring case, and returns an HS256 token with sub, jti, role and exp', async () => {
    const res = await request(app).post('/api/auth/local').send({ identifier: 'ALICE@Docflow.Local', password: 'Alice#Pass123' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ jwt: expect.any(String), user: { id: aliceId, username: 'alice', email: 'alice@docflow.local' } });
    const decoded = jwt.decode((res.body as { jwt: string }).jwt, { complete: true });
    expect(decoded?.header.alg).toBe('HS256');
    const payload = decoded?.payload as Record<string, unknown>;
    expect(payload.sub).toBe(String(aliceId));
    expect(payload.role).toBe('user');
    expect(payload.jti).toMatch(/^[0-9a-f-]{36}$/);
    expect(payload.exp).toBe((payload.iat as number) + 86400);
  });

  it('logs in by username, ignoring case', async () => {
    const res = await request(app).post('/api/auth/local').send({ identifier: 'Admin', password: 'Admin#Pass123' });
    expect(res.status).toBe(200);
    expect((res.body as { user: { username: string } }).user.username).toBe('admin');
  });

  it('answers a wrong password and an unknown identifier with the same 400 body', async () => {
    const wrong = await request(app).post('/api/auth/local').send({ identifier: 'alice@docflow.local', password: 'not-her-password' });
    const unknown = await request(app).post('/api/auth/local').send({ identifier: 'nobody@docflow.local', password: 'whatever1' });
    expect(wrong.status).toBe(400);
    expect(unknown.status).toBe(400);
    expect((wrong.body as ErrorBody).error).toEqual({
      status: 400,
      name: 'BadRequestError',
      message: 'Invalid identifier or password',
      details: { errors: ['Invalid identifier or password'] },
    });
    expect((unknown.body as ErrorBody).error).toEqual((wrong.body as ErrorBody).error);
  });

  it('names each missing field in details.errors', async () => {
    const res = await request(app).post('/api/auth/local').send({ identifier: '' });
    expect(res.status).toBe(400);
    const body = res.body as ErrorBody;
    expect(body.error.name).toBe('BadRequestError');
    const errors = body.error.details.errors as string[];
    expect(errors.some((e) => e.startsWith('identifier'))).toBe(true);
    expect(errors.some((e) => e.startsWith('password'))).toBe(true);
  });

  it('validates a body carrying constructor or __proto__ keys like any other (400, not 500)', async () => {
    for (const key of ['constructor', '__proto__']) {
      const res = await request(app).post('/api/auth/local').set('content-type', 'application/json').send(`{"identifier": {}, "password": [], "${key}": {}}`);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: {
          status: 400,
          name: 'BadRequestError',
          message: 'identifier and password are required',
          details: { errors: expect.arrayContaining(['identifier must be a string', 'password must be a string']) },
        },
      });
    }
  });

  it('refuses a JSON body sent as text/plain with 415 (a cross-site form can send that type without a preflight)', async () => {
    const res = await request(app)
      .post('/api/auth/local')
      .set('content-type', 'text/plain;charset=UTF-8')
      .send(JSON.stringify({ identifier: 'bob', password: 'Bob#Pass123' }));
    expect(res.status).toBe(415);
    expect(res.body.error).toMatchObject({ status: 415, name: 'UnsupportedMediaTypeError' });
    expect(res.body.jwt).toBeUndefined();
  });

  it('refuses a blocked user, and the tokens the user already holds', async () => {
    await request(app).post('/api/auth/local').send({ identifier: 'bob', password: 'Bob#Pass123' }).expect(200);
    const token = await login(app, 'bob', 'Bob#Pass123');
    // Used once, so the token is known as verified: the user is still resolved on the next request.
    await request(app).get('/api/users/me').set('authorization', `Bearer ${token}`).expect(200);
    await bed.database.query("UPDATE users SET blocked = true WHERE username = 'bob'");
    try {
      const res = await request(app).post('/api/auth/local').send({ identifier: 'bob', password: 'Bob#Pass123' });
      expect(res.status).toBe(400);
      const me = await request(app).get('/api/users/me').set('authorization', `Bearer ${token}`);
      expect(me.status).toBe(401);
      expect((me.body as ErrorBody).error.message).toBe('User is blocked');
    } finally {
      await bed.database.query("UPDATE users SET blocked = false WHERE username = 'bob'");
    }
  });

  it('writes auth.login with the user id and never the password or token', async () => {
    const token = await login(app, 'alice', 'Alice#Pass123');
    const entry = lines.filter((l) => l.message === 'auth.login').pop();
    expect(entry?.meta).toMatchObject({ action: 'auth.login', userId: aliceId });
    const all = JSON.stringify(lines);
    expect(all).not.toContain('Alice#Pass123');
    expect(all).not.toContain(token);
  });
});

describe('GET /api/users/me', () => {
  const expect401 = async (authorization: string | undefined, message?: string) => {
    const req = request(app).get('/api/users/me');
    const res = authorization === undefined ? await req : await req.set('authorization', authorization);
    expect(res.status).toBe(401);
    const body = res.body as ErrorBody;
    expect(body.error).toMatchObject({ status: 401, name: 'UnauthorizedError', details: {} });
    expect(typeof body.error.message).toBe('string');
    if (message) expect(body.error.message).toBe(message);
  };

  it('returns the caller with the role read from the database', async () => {
    const token = await login(app, 'admin@docflow.local', 'Admin#Pass123');
    const res = await request(app).get('/api/users/me').set('authorization', `Bearer ${token}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: expect.any(Number), username: 'admin', email: 'admin@docflow.local', role: 'super_admin', quota_warnings: [] });
  });

  it('is 401 without a token', () => expect401(undefined, 'Missing bearer token'));

  it('is 401 with a garbage token', () => expect401('Bearer not.a.jwt', 'Invalid token'));

  it('is 401 with an unsigned alg:none token', async () => {
    const token = `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(claimsFor(aliceId))}.`;
    await expect401(`Bearer ${token}`, 'Invalid token');
  });

  it('is 401 with an HS512 token signed with the right secret', async () => {
    const token = jwt.sign(claimsFor(aliceId), TEST_JWT_SECRET, { algorithm: 'HS512' });
    await expect401(`Bearer ${token}`, 'Invalid token');
  });

  it('is 401 with an HS256 token signed with another secret', async () => {
    const token = jwt.sign(claimsFor(aliceId), 'some-other-secret-0123456789', { algorithm: 'HS256' });
    await expect401(`Bearer ${token}`, 'Invalid token');
  });

  it('is 401 with an expired token', async () => {
    const now = Math.floor(Date.now() / 1000);
    const token = jwt.sign(claimsFor(aliceId, { iat: now - 120, exp: now - 60 }), TEST_JWT_SECRET, { algorithm: 'HS256' });
    await expect401(`Bearer ${token}`, 'Token has expired');
  });

  it('is 401 for a token of a user that does not exist', async () => {
    const token = jwt.sign(claimsFor(999999), TEST_JWT_SECRET, { algorithm: 'HS256' });
    await expect401(`Bearer ${token}`, 'User not found');
  });

  it('accepts a token signed by us as HS256 with the expected claims', async () => {
    const token = jwt.sign(claimsFor(aliceId), TEST_JWT_SECRET, { algorithm: 'HS256' });
    const res = await request(app).get('/api/users/me').set('authorization', `Bearer ${token}`);
    expect(res.status).toBe(200);
    expect((res.body as { username: string }).username).toBe('alice');
  });
});

describe('POST /api/auth/logout-all', () => {
  it('refuses every token the user holds, on every app over the database, while later logins work', async () => {
    await new UsersService(new UsersRepository(bed.database)).create({ username: 'carol', email: 'carol@docflow.local', password: 'Carol#Pass123', role: 'user' });
    const first = await login(app, 'carol', 'Carol#Pass123');
    const second = await login(app, 'carol', 'Carol#Pass123');
    const carolId = Number((jwt.decode(first) as { sub: string }).sub);
    // A token signed before token versions existed (no `tv` claim) counts as version 0.
    const legacy = jwt.sign(claimsFor(carolId), TEST_JWT_SECRET, { algorithm: 'HS256' });
    const other = buildTestApp(bed);
    for (const token of [first, second, legacy]) await request(other).get('/api/users/me').set('authorization', `Bearer ${token}`).expect(200);
    const alice = await login(app, 'alice', 'Alice#Pass123');

    const res = await request(app).post('/api/auth/logout-all').set('authorization', `Bearer ${second}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: expect.any(String) });
    for (const target of [app, other]) {
      for (const token of [first, second, legacy]) {
        const after = await request(target).get('/api/users/me').set('authorization', `Bearer ${token}`);
        expect(after.status).toBe(401);
        expect((after.body as ErrorBody).error.message).toBe('Token has been revoked');
      }
    }
    const fresh = await login(app, 'carol', 'Carol#Pass123');
    await request(other).get('/api/users/me').set('authorization', `Bearer ${fresh}`).expect(200);
    // Other users keep their sessions.
    await request(other).get('/api/users/me').set('authorization', `Bearer ${alice}`).expect(200);
    expect(lines.some((l) => l.message === 'auth.logout_all' && l.meta?.['userId'] === carolId)).toBe(true);
  });

  it('needs a token', async () => {
    expect((await request(app).post('/api/auth/logout-all')).status).toBe(401);
  });
});

describe('POST /api/auth/logout', () => {
  it('revokes the presented token, also for another app over the same database (a restart)', async () => {
    const token = await login(app, 'alice', 'Alice#Pass123');
    const other = await login(app, 'alice', 'Alice#Pass123');
    const res = await request(app).post('/api/auth/logout').set('authorization', `Bearer ${token}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: expect.any(String) });

    const again = await request(app).get('/api/users/me').set('authorization', `Bearer ${token}`);
    expect(again.status).toBe(401);
    expect((again.body as ErrorBody).error.message).toBe('Token has been revoked');

    const restarted = buildTestApp(bed);
    const afterRestart = await request(restarted).get('/api/users/me').set('authorization', `Bearer ${token}`);
    expect(afterRestart.status).toBe(401);
    expect((afterRestart.body as ErrorBody).error.name).toBe('UnauthorizedError');

    // Logging out one session leaves the user's other tokens alone.
    await request(restarted).get('/api/users/me').set('authorization', `Bearer ${other}`).expect(200);

    const { jti, exp } = jwt.decode(token) as { jti: string; exp: number };
    const rows = (await bed.database.query('SELECT user_id, expires_at FROM revoked_tokens WHERE jti = $1', [jti])) as { user_id: number; expires_at: Date }[];
    expect(rows).toHaveLength(1);
    expect(rows[0]!.user_id).toBe(aliceId);
    expect(rows[0]!.expires_at.getTime()).toBe(exp * 1000);
    const entry = lines.filter((l) => l.message === 'auth.logout').pop();
    expect(entry?.meta).toMatchObject({ userId: aliceId, jti });
  });

  it('needs a token', async () => {
    const res = await request(app).post('/api/auth/logout');
    expect(res.status).toBe(401);
  });

  it('purges revocations of tokens that have expired, and only those', async () => {
    const expired = randomUUID();
    const live = randomUUID();
    await bed.database.query("INSERT INTO revoked_tokens (jti, user_id, expires_at) VALUES ($1, $3, now() - interval '1 minute'), ($2, $3, now() + interval '1 hour')", [expired, live, aliceId]);
    const purged = await purgeExpiredAuthRecords(bed.database);
    expect(purged.revocations).toBeGreaterThanOrEqual(1);
    const left = (await bed.database.query('SELECT jti FROM revoked_tokens WHERE jti IN ($1, $2)', [expired, live])) as { jti: string }[];
    expect(left.map((r) => r.jti)).toEqual([live]);
  });

  it('purges expired step-up codes and grants, and only those', async () => {
    const expiredGrant = randomUUID();
    const liveGrant = randomUUID();
    await bed.database.query("INSERT INTO step_up_grants (jti, user_id, expires_at) VALUES ($1, $3, now() - interval '1 second'), ($2, $3, now() + interval '5 minutes')", [
      expiredGrant,
      liveGrant,
      aliceId,
    ]);
    await bed.database.query("INSERT INTO step_up_codes (user_id, code_hash, expires_at) VALUES ($1, 'ab', now() - interval '1 second')", [aliceId]);
    const purged = await purgeExpiredAuthRecords(bed.database);
    expect(purged.stepUp).toBe(2);
    const grants = (await bed.database.query('SELECT jti FROM step_up_grants WHERE jti IN ($1, $2)', [expiredGrant, liveGrant])) as { jti: string }[];
    expect(grants.map((r) => r.jti)).toEqual([liveGrant]);
    expect((await bed.database.query('SELECT 1 FROM step_up_codes WHERE user_id = $1', [aliceId])) as unknown[]).toHaveLength(0);
  });
});
