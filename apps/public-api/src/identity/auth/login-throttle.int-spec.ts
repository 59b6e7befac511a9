import request from 'supertest';
import type express from 'express';
import { seedDemoUsers } from '../seed/demo-users';
import { buildTestApi, LogLine, openTestBed, recordingLogger, TestBed, testConfig } from '../../test-support/test-app';
import { UsersRepository } from '../users/users.repository';
import { UsersService } from '../users/users.service';

/**
 * The login throttle (issue 13, item 4) with two apps over one database, as
 * two processes of the public API: the counts are shared, so alternating
 * between them gains an attacker nothing. Client addresses come from
 * X-Forwarded-For (TRUST_PROXY=true).
 */
let bed: TestBed;
let apps: express.Express[];
const lines: LogLine[] = [];
const flushers: Array<() => Promise<void>> = [];

interface ErrorBody {
  error: { status: number; name: string; message: string; details: Record<string, unknown> };
}

function attempt(n: number, identifier: string, password: string, address = '203.0.113.7') {
  return request(apps[n % 2]!)
    .post('/api/auth/local')
    .set('x-forwarded-for', address)
    .send({ identifier, password });
}

async function auditRows(action: string): Promise<Array<{ actor_user_id: number | null; details: Record<string, unknown> }>> {
  for (const flush of flushers) await flush();
  return (await bed.database.query('SELECT actor_user_id, details FROM audit_log WHERE action = $1 ORDER BY id', [action])) as Array<{
    actor_user_id: number | null;
    details: Record<string, unknown>;
  }>;
}

let aliceId: number;

beforeAll(async () => {
  bed = await openTestBed();
  await seedDemoUsers(new UsersService(new UsersRepository(bed.database)), recordingLogger());
  const config = testConfig({ LOGIN_MAX_FAILURES_PER_ACCOUNT: '3', LOGIN_MAX_FAILURES_PER_ADDRESS: '6', LOGIN_THROTTLE_WINDOW_SECONDS: '900', TRUST_PROXY: 'true' });
  const built = [buildTestApi(bed, { config, logger: recordingLogger(lines) }), buildTestApi(bed, { config, logger: recordingLogger(lines) })];
  apps = built.map((b) => b.app);
  for (const b of built) flushers.push(() => b.audit.flush());
  aliceId = ((await bed.database.query("SELECT id FROM users WHERE username = 'alice'")) as Array<{ id: number }>)[0]!.id;
});

beforeEach(async () => {
  await bed.database.query('DELETE FROM rate_limit_counters');
});

afterAll(async () => {
  await bed?.close();
});

describe('login throttle', () => {
  it('refuses an account after its failures, even with the right password, with 429, Retry-After and one audit row', async () => {
    for (let i = 0; i < 3; i++) expect((await attempt(i, 'alice@docflow.local', 'wrong-password')).status).toBe(400);
    const refused = [];
    // The username names the same account as the e-mail address; the right password does not get through either.
    for (let i = 0; i < 3; i++) refused.push(await attempt(i, i === 0 ? 'Alice' : 'alice@docflow.local', 'Alice#Pass123'));
    for (const res of refused) {
      expect(res.status).toBe(429);
      expect((res.body as ErrorBody).error).toEqual({
        status: 429,
        name: 'TooManyRequestsError',
        message: 'Too many failed logins; try again later',
        details: { retry_after: expect.any(Number) },
      });
      const wait = Number(res.headers['retry-after']);
      expect(wait).toBeGreaterThan(800);
      expect(wait).toBeLessThanOrEqual(900);
      expect((res.body as ErrorBody).error.details['retry_after']).toBe(wait);
    }
    const rows = await auditRows('auth.login.throttled');
    expect(rows).toEqual([{ actor_user_id: aliceId, details: { scope: 'account', max_failures: 3, window_seconds: 900, retry_after: expect.any(Number) } }]);
    // Other accounts from another address are not affected.
    expect((await attempt(0, 'bob', 'Bob#Pass123', '198.51.100.1')).status).toBe(200);
  });

  it('lets the account in again once its window has ended', async () => {
    for (let i = 0; i < 4; i++) await attempt(i, 'bob', 'wrong-password', '198.51.100.2');
    expect((await attempt(0, 'bob', 'Bob#Pass123', '198.51.100.2')).status).toBe(429);
    await bed.database.query("UPDATE rate_limit_counters SET expires_at = now() - interval '1 second'");
    expect((await attempt(1, 'bob', 'Bob#Pass123', '198.51.100.2')).status).toBe(200);
  });

  it('refuses a client address after its failures, whatever the accounts tried, unknown ones included', async () => {
    const identifiers = ['nobody1@example.com', 'nobody2@example.com', 'bob', 'nobody3', 'admin', 'alice'];
    for (const [i, id] of identifiers.entries()) expect((await attempt(i, id, 'wrong-password', '192.0.2.50')).status).toBe(400);
    const refused = await attempt(0, 'someone-else', 'wrong-password', '192.0.2.50');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // The same accounts from another address are only counted per account (one failure each so far).
    expect((await attempt(1, 'bob', 'Bob#Pass123', '192.0.2.51')).status).toBe(200);
    const rows = await auditRows('auth.login.throttled');
    expect(rows.filter((r) => r.details['scope'] === 'address')).toEqual([
      { actor_user_id: null, details: { scope: 'address', max_failures: 6, window_seconds: 900, retry_after: expect.any(Number) } },
    ]);
  });

  it('does not count successful logins', async () => {
    for (let i = 0; i < 8; i++) expect((await attempt(i, 'alice', 'Alice#Pass123', '192.0.2.60')).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await attempt(i, 'alice', 'wrong-password', '192.0.2.60')).status).toBe(400);
    expect((await attempt(0, 'alice', 'Alice#Pass123', '192.0.2.60')).status).toBe(200);
  });

  it('throttles parallel attempts exactly: never more than the limit of failures reach bcrypt', async () => {
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => attempt(i, 'admin', 'wrong-password', `192.0.2.${100 + i}`)));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([400, 400, 400, 429, 429, 429, 429, 429, 429, 429]);
  });
});
