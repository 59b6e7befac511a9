import request from 'supertest';
import { listenForNotifications, type NotificationListener } from '@docflow/persistence';
import { seedDemoUsers } from '../seed/demo-users';
import { UsersRepository } from '../users/users.repository';
import { UsersService } from '../users/users.service';
import { buildTestApi, openTestBed, recordingLogger, TestBed } from '../../test-support/test-app';
import type { PublicApi } from '../../app';
import { AUTH_CHANGED_CHANNEL } from './principal-cache';

let bed: TestBed;
let api: PublicApi;
let listener: NotificationListener;

async function login(identifier: string, password: string): Promise<string> {
  const res = await request(api.app).post('/api/auth/local').send({ identifier, password });
  expect(res.status).toBe(200);
  return (res.body as { jwt: string }).jwt;
}

const me = (jwt: string) => request(api.app).get('/api/users/me').set('authorization', `Bearer ${jwt}`);

/** Polls until the request answers `status` (notifications arrive asynchronously); fails with the last answer. */
async function eventually(jwt: string, status: number): Promise<void> {
  let last = 0;
  for (let i = 0; i < 200; i++) {
    last = (await me(jwt)).status;
    if (last === status) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`expected ${status}, still ${last}`);
}

beforeAll(async () => {
  bed = await openTestBed();
  await seedDemoUsers(new UsersService(new UsersRepository(bed.database)), recordingLogger());
  api = buildTestApi(bed);
  listener = listenForNotifications({
    url: bed.db.url,
    channel: AUTH_CHANGED_CHANNEL,
    onNotify: (p) => api.principals.onNotification(p),
    onLiveChange: (live) => api.principals.setLive(live),
    logger: recordingLogger(),
  });
  await listener.ready;
});

afterAll(async () => {
  await listener?.close();
  await bed?.close();
});

describe('principal cache with database notifications', () => {
  it('is live once listening, and caches a principal after the first request', async () => {
    expect(api.principals.isLive).toBe(true);
    const jwt = await login('alice', 'Alice#Pass123');
    expect((await me(jwt)).status).toBe(200);
    expect(api.principals.size).toBeGreaterThan(0);
  });

  it('refuses a token at once after logout through this process', async () => {
    const jwt = await login('alice', 'Alice#Pass123');
    expect((await me(jwt)).status).toBe(200);
    expect((await request(api.app).post('/api/auth/logout').set('authorization', `Bearer ${jwt}`)).status).toBe(200);
    expect((await me(jwt)).status).toBe(401);
  });

  it('refuses a user blocked by SQL from outside the API (the trigger notifies)', async () => {
    const jwt = await login('bob', 'Bob#Pass123');
    expect((await me(jwt)).status).toBe(200);
    await bed.database.query("UPDATE users SET blocked = true WHERE username = 'bob'");
    await eventually(jwt, 401);
    await bed.database.query("UPDATE users SET blocked = false WHERE username = 'bob'");
    await eventually(jwt, 200);
  });

  it('applies a role change made by SQL', async () => {
    const jwt = await login('bob', 'Bob#Pass123');
    const before = await me(jwt);
    expect(before.status).toBe(200);
    await bed.database.query("UPDATE users SET role = 'super_admin' WHERE username = 'bob'");
    let role: unknown;
    for (let i = 0; i < 200 && role !== 'super_admin'; i++) {
      role = ((await me(jwt)).body as { role?: unknown }).role;
      if (role !== 'super_admin') await new Promise((r) => setTimeout(r, 10));
    }
    expect(role).toBe('super_admin');
    await bed.database.query("UPDATE users SET role = 'user' WHERE username = 'bob'");
  });

  it('refuses a token revoked by another replica (a row inserted directly)', async () => {
    const jwt = await login('alice', 'Alice#Pass123');
    expect((await me(jwt)).status).toBe(200);
    const claims = JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString()) as { jti: string; sub: string; exp: number };
    await bed.database.query('INSERT INTO revoked_tokens (jti, user_id, expires_at) VALUES ($1, $2, to_timestamp($3))', [claims.jti, Number(claims.sub), claims.exp]);
    await eventually(jwt, 401);
  });

  it('stops caching when the listening connection is lost', async () => {
    const jwt = await login('alice', 'Alice#Pass123');
    expect((await me(jwt)).status).toBe(200);
    await bed.database.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'LISTEN%' AND pid <> pg_backend_pid()");
    for (let i = 0; i < 200 && api.principals.isLive; i++) await new Promise((r) => setTimeout(r, 10));
    expect(api.principals.size).toBe(0);
    // It listens again by itself (backoff from 200 ms).
    for (let i = 0; i < 300 && !api.principals.isLive; i++) await new Promise((r) => setTimeout(r, 20));
    expect(api.principals.isLive).toBe(true);
  });
});
