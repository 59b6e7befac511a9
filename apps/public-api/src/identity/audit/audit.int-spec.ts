import request from 'supertest';
import type express from 'express';
import { seedDemoUsers } from '../seed/demo-users';
import { buildTestApi, LogLine, openTestBed, recordingLogger, TestBed } from '../../test-support/test-app';
import { UsersRepository } from '../users/users.repository';
import { UsersService } from '../users/users.service';
import { Metrics } from '@docflow/service-kit';
import { AuditLog } from './audit-log';
import { AuditRepository, timestampArray } from './audit.repository';
import type { AuditRecordView } from './audit.feature';

let bed: TestBed;
let app: express.Express;
let audit: AuditLog;
const lines: LogLine[] = [];
const ids: Record<'alice' | 'bob' | 'admin', number> = { alice: 0, bob: 0, admin: 0 };
const tokens: Record<'alice' | 'bob' | 'admin', string> = { alice: '', bob: '', admin: '' };

interface AuditList {
  data: AuditRecordView[];
  meta: { pagination: { page: number; pageSize: number; pageCount: number; total: number } };
}

async function login(identifier: string, password: string, correlationId?: string): Promise<request.Response> {
  const req = request(app).post('/api/auth/local');
  if (correlationId) void req.set('X-Correlation-Id', correlationId);
  return req.send({ identifier, password });
}

async function list(path: string, token: string): Promise<AuditList> {
  await audit.flush();
  const res = await request(app).get(path).set('Authorization', `Bearer ${token}`);
  expect(res.status).toBe(200);
  return res.body as AuditList;
}

beforeAll(async () => {
  bed = await openTestBed();
  await seedDemoUsers(new UsersService(new UsersRepository(bed.database)), recordingLogger());
  const api = buildTestApi(bed, { logger: recordingLogger(lines) });
  app = api.app;
  audit = api.audit;
  const rows = (await bed.database.query("SELECT id, username FROM users WHERE username IN ('alice', 'bob', 'admin')")) as { id: number; username: 'alice' | 'bob' | 'admin' }[];
  for (const r of rows) ids[r.username] = r.id;
  tokens.alice = ((await login('alice@docflow.local', 'Alice#Pass123', 'corr-alice-login')).body as { jwt: string }).jwt;
  tokens.bob = ((await login('bob', 'Bob#Pass123')).body as { jwt: string }).jwt;
  tokens.admin = ((await login('admin@docflow.local', 'Admin#Pass123')).body as { jwt: string }).jwt;
  expect((await login('alice@docflow.local', 'not her password', 'corr-alice-failed')).status).toBe(400);
  await audit.flush();
});

afterAll(async () => {
  await bed?.close();
});

describe('audit rows written by the actions they record', () => {
  it('records a login with the actor, the request correlation id and no personal data', async () => {
    const rows = (await list('/api/admin/audit-log?correlation_id=corr-alice-login', tokens.admin)).data;
    expect(rows).toEqual([
      {
        id: expect.any(Number),
        action: 'auth.login',
        actor_user: ids.alice,
        tenant: null,
        correlation_id: 'corr-alice-login',
        details: { jti: expect.stringMatching(/^[0-9a-f-]{36}$/) },
        created_at: expect.any(String),
        createdAt: expect.any(String),
        retain_until: expect.any(String),
      },
    ]);
    const row = rows[0]!;
    const days = (Date.parse(row.retain_until) - Date.parse(row.created_at)) / 86_400_000;
    expect(days).toBeCloseTo(400, 5);
  });

  it('records a failed login with its reason, never the identifier or the password', async () => {
    const [row] = (await list('/api/admin/audit-log?correlation_id=corr-alice-failed', tokens.admin)).data;
    expect(row).toMatchObject({ action: 'auth.login.failed', actor_user: ids.alice, details: { reason: 'wrong_password' } });
    const stored = JSON.stringify(await bed.database.query('SELECT * FROM audit_log'));
    expect(stored).not.toContain('alice@docflow.local');
    expect(stored).not.toContain('not her password');
  });

  it('records a logout', async () => {
    const token = ((await login('bob', 'Bob#Pass123')).body as { jwt: string }).jwt;
    await request(app).post('/api/auth/logout').set('Authorization', `Bearer ${token}`).set('X-Correlation-Id', 'corr-bob-logout').expect(200);
    const rows = (await list('/api/admin/audit-log?correlation_id=corr-bob-logout', tokens.admin)).data;
    expect(rows.map((r) => [r.action, r.actor_user])).toEqual([['auth.logout', ids.bob]]);
  });
});

describe('GET /api/admin/audit-log', () => {
  it('is for super administrators only: 403 for a user, 401 without a token', async () => {
    const res = await request(app).get('/api/admin/audit-log').set('Authorization', `Bearer ${tokens.alice}`);
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: { status: 403, name: 'ForbiddenError' } });
    expect((await request(app).get('/api/admin/audit-log')).status).toBe(401);
  });

  it('lists newest first with Strapi pagination, filtered by action and actor_user (plain or filters[...])', async () => {
    const all = await list('/api/admin/audit-log?pagination[pageSize]=2', tokens.admin);
    expect(all.data).toHaveLength(2);
    expect(all.meta.pagination).toMatchObject({ page: 1, pageSize: 2 });
    expect(all.meta.pagination.total).toBeGreaterThanOrEqual(5);
    expect(Date.parse(all.data[0]!.created_at)).toBeGreaterThanOrEqual(Date.parse(all.data[1]!.created_at));

    const plain = (await list(`/api/admin/audit-log?action=auth.login&actor_user=${ids.bob}`, tokens.admin)).data;
    const strapi = (await list(`/api/admin/audit-log?filters[action][$eq]=auth.login&filters[actor_user][$eq]=${ids.bob}`, tokens.admin)).data;
    expect(plain.length).toBe(2);
    expect(plain.every((r) => r.action === 'auth.login' && r.actor_user === ids.bob)).toBe(true);
    expect(strapi.map((r) => r.id)).toEqual(plain.map((r) => r.id));
  });

  it('filters on a time range', async () => {
    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect((await list(`/api/admin/audit-log?from=${encodeURIComponent(future)}`, tokens.admin)).data).toEqual([]);
    const past = new Date(Date.now() - 3_600_000).toISOString();
    const inRange = await list(`/api/admin/audit-log?from=${encodeURIComponent(past)}&to=${encodeURIComponent(future)}`, tokens.admin);
    expect(inRange.meta.pagination.total).toBe((await list('/api/admin/audit-log', tokens.admin)).meta.pagination.total);
  });

  it('answers 400 with the spec error body for a bad filter value', async () => {
    const res = await request(app).get('/api/admin/audit-log?actor_user=abc').set('Authorization', `Bearer ${tokens.admin}`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: { status: 400, name: 'BadRequestError', details: { errors: expect.any(Array) } } });
  });
});

describe('GET /api/audit-log/me', () => {
  it('lists only the caller’s rows, and has no action filter', async () => {
    const mine = await list('/api/audit-log/me', tokens.alice);
    expect(mine.data.length).toBeGreaterThanOrEqual(2);
    expect(mine.data.every((r) => r.actor_user === ids.alice)).toBe(true);
    expect(new Set(mine.data.map((r) => r.action))).toEqual(new Set(['auth.login', 'auth.login.failed']));
    // A plain action parameter is not a filter here; a Strapi one names a field this list does not have.
    expect((await list('/api/audit-log/me?action=auth.login', tokens.alice)).meta.pagination.total).toBe(mine.meta.pagination.total);
    const res = await request(app).get('/api/audit-log/me?filters[action][$eq]=auth.login').set('Authorization', `Bearer ${tokens.alice}`);
    expect(res.status).toBe(400);
  });
});

describe('the audit_log table', () => {
  it('refuses to change or delete a row, even by SQL, until its retention has ended', async () => {
    const [row] = (await bed.database.query('SELECT id FROM audit_log ORDER BY id LIMIT 1')) as { id: string }[];
    await expect(bed.database.query("UPDATE audit_log SET action = 'forged' WHERE id = $1", [row!.id])).rejects.toThrow(/immutable/);
    await expect(bed.database.query('DELETE FROM audit_log WHERE id = $1', [row!.id])).rejects.toThrow(/immutable/);
    await expect(bed.database.query('TRUNCATE audit_log')).rejects.toThrow(/immutable/);
  });

  it('stores each row’s instants to the millisecond, whatever the batch', async () => {
    const at = (ms: number) => new Date(Date.UTC(2026, 0, 2, 3, 4, 5) + ms);
    const rows = [1, 999, 0].map((ms, i) => ({
      action: `test.instant.${i}`,
      actorUserId: null,
      tenant: null,
      correlationId: null,
      details: '{}',
      createdAt: at(ms),
      retainUntil: new Date(at(ms).getTime() + 400 * 86_400_000),
    }));
    await new AuditRepository(bed.database).insertBatch(rows);
    const stored = (await bed.database.query(
      "SELECT action, (extract(epoch FROM created_at) * 1000)::bigint AS created, (extract(epoch FROM retain_until) * 1000)::bigint AS retain FROM audit_log WHERE action LIKE 'test.instant.%' ORDER BY action",
    )) as { action: string; created: string; retain: string }[];
    expect(stored.map((r) => [r.action, Number(r.created), Number(r.retain)])).toEqual(rows.map((r) => [r.action, r.createdAt.getTime(), r.retainUntil.getTime()]));
    expect(timestampArray([], (d: Date) => d)).toBe('{}');
  });

  it('purges exactly the rows whose retention has ended', async () => {
    await bed.database.query(
      `INSERT INTO audit_log (action, actor_user_id, details, created_at, retain_until)
       VALUES ('auth.login', $1, '{}', now() - interval '401 days', now() - interval '1 day'), ('auth.login', $1, '{}', now() - interval '1 day', now() + interval '399 days')`,
      [ids.bob],
    );
    const before = Number(((await bed.database.query('SELECT count(*) AS n FROM audit_log')) as { n: string }[])[0]!.n);
    expect(await audit.purgeExpired()).toBe(1);
    const after = Number(((await bed.database.query('SELECT count(*) AS n FROM audit_log')) as { n: string }[])[0]!.n);
    expect(after).toBe(before - 1);
  });

  it('stores details holding NUL or lone surrogates (which jsonb refuses) cleaned, without losing the rows batched with them', async () => {
    audit.record({ action: 'test.unstorable', actorUserId: ids.alice, correlationId: 'corr-unstorable', details: { reason: 'a\u0000b', ['k\ud800']: ['\udc00x'] } });
    audit.record({ action: 'test.neighbour', actorUserId: ids.alice, correlationId: 'corr-unstorable', details: { n: 1 } });
    await audit.flush();
    const rows = (await bed.database.query("SELECT action, details FROM audit_log WHERE correlation_id = 'corr-unstorable' ORDER BY id")) as { action: string; details: unknown }[];
    expect(rows).toEqual([
      { action: 'test.unstorable', details: { reason: 'ab', ['k\ufffd']: ['\ufffdx'] } },
      { action: 'test.neighbour', details: { n: 1 } },
    ]);
  });

  it('never drops a row silently: rows shed beyond maxPending are counted in docflow_audit_rows_dropped_total and alerted', async () => {
    const metrics = new Metrics('public-api');
    const alerts: LogLine[] = [];
    const small = new AuditLog({ database: bed.database, logger: recordingLogger(alerts), metrics, retentionDays: 1, maxPending: 3, flushDelayMs: 60_000 });
    for (let i = 0; i < 5; i++) small.record({ action: 'test.shed', details: { n: i } });
    expect(small.dropped).toBe(2);
    expect(await metrics.render()).toMatch(/^docflow_audit_rows_dropped_total\{service="public-api"\} 2$/m);
    const alert = alerts.filter((l) => l.level === 'error' && l.message.startsWith('ALERT audit rows dropped')).pop();
    expect(alert?.meta).toMatchObject({ dropped: 1, droppedTotal: 2, maxPending: 3, actions: ['test.shed'] });
    await small.close();
    const kept = (await bed.database.query("SELECT details->>'n' AS n FROM audit_log WHERE action = 'test.shed' ORDER BY id")) as Array<{ n: string }>;
    expect(kept.map((r) => r.n)).toEqual(['2', '3', '4']);
  });

  it('tolerates a failed write: the action succeeds, the failure is logged, and the row is written once the table takes it', async () => {
    await bed.database.query('ALTER TABLE audit_log RENAME TO audit_log_away');
    try {
      expect((await login('bob', 'Bob#Pass123', 'corr-while-away')).status).toBe(200);
      await audit.flush();
      expect(lines.some((l) => l.message === 'writing audit rows failed')).toBe(true);
    } finally {
      await bed.database.query('ALTER TABLE audit_log_away RENAME TO audit_log');
    }
    expect((await login('bob', 'Bob#Pass123', 'corr-after')).status).toBe(200);
    const rows = (await list('/api/admin/audit-log?correlation_id=corr-while-away', tokens.admin)).data;
    expect(rows.map((r) => r.action)).toEqual(['auth.login']);
  });
});
