import request from 'supertest';
import type express from 'express';
import { createMailer, type Mailer } from '@docflow/mail';
import { LoopbackSmtp } from '@docflow/testing';
import type { AuditLog } from '../audit/audit-log';
import { seedDemoUsers } from '../seed/demo-users';
import { completeStepUp } from '../../test-support/step-up-mail';
import { buildTestApi, LogLine, openTestBed, recordingLogger, TestBed, testConfig } from '../../test-support/test-app';
import { UsersRepository } from '../users/users.repository';
import { UsersService } from '../users/users.service';
import { silentLogger } from '@docflow/service-kit';
import { rotateCredentialKeys } from './credential-key-rotation';
import { CredentialSealer } from './credential-sealer';
import { createCredentialsService } from './credentials.feature';
import { CredentialsRepository } from './credentials.repository';
import type { CredentialView } from './credentials.service';

let bed: TestBed;
let app: express.Express;
let audit: AuditLog;
let smtp: LoopbackSmtp;
let mailer: Mailer;
const lines: LogLine[] = [];
const SECRET = 'sk_live_4eC39HqLyjWDarjtT1zdp7dc';
let alice = '';
let bob = '';
let aliceId = 0;

async function login(identifier: string, password: string): Promise<string> {
  const res = await request(app).post('/api/auth/local').send({ identifier, password });
  expect(res.status).toBe(200);
  return (res.body as { jwt: string }).jwt;
}

const as = (token: string) => ({ authorization: `Bearer ${token}` });

async function create(token: string, body: unknown): Promise<request.Response> {
  return request(app)
    .post('/api/credentials')
    .set(as(token))
    .send(body as object);
}

function stepUp(token: string): Promise<void> {
  return completeStepUp(app, `Bearer ${token}`, () => smtp.nextMail());
}

beforeAll(async () => {
  bed = await openTestBed();
  await seedDemoUsers(new UsersService(new UsersRepository(bed.database)), recordingLogger());
  smtp = await LoopbackSmtp.start();
  const logger = recordingLogger(lines);
  mailer = createMailer({ smtpUrl: smtp.url, outboxDir: bed.outboxDir, from: 'Docflow <no-reply@docflow.local>', logger });
  const api = buildTestApi(bed, { mailer, logger });
  app = api.app;
  audit = api.audit;
  alice = await login('alice', 'Alice#Pass123');
  bob = await login('bob', 'Bob#Pass123');
  aliceId = ((await bed.database.query("SELECT id FROM users WHERE username = 'alice'")) as { id: number }[])[0]!.id;
});

afterAll(async () => {
  mailer?.close();
  await smtp?.stop();
  await bed?.close();
});

describe('credentials (spec 4.13)', () => {
  it('stores fields sealed, answers with names only, and never lets a value out through the API, the table or the logs', async () => {
    const res = await create(alice, { data: { name: 'Stripe live', provider: 'stripe', description: 'payments', fields: { api_key: SECRET, account: 'acct_1' } } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      data: {
        id: expect.any(Number),
        name: 'Stripe live',
        provider: 'stripe',
        description: 'payments',
        field_names: ['api_key', 'account'],
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      },
    });
    const id = (res.body as { data: CredentialView }).data.id;

    const one = await request(app).get(`/api/credentials/${id}`).set(as(alice));
    expect(one.status).toBe(200);
    expect((one.body as { data: CredentialView }).data).toMatchObject({ id, name: 'Stripe live', provider: 'stripe', field_names: ['api_key', 'account'] });
    const list = await request(app).get('/api/credentials').set(as(alice));
    expect(list.status).toBe(200);
    expect((list.body as { data: CredentialView[] }).data.map((c) => c.id)).toContain(id);
    expect((list.body as { meta: { pagination: { total: number } } }).meta.pagination.total).toBeGreaterThanOrEqual(1);

    await audit.flush();
    const everything = JSON.stringify([one.body, list.body, res.body, lines, await bed.database.query('SELECT * FROM credentials'), await bed.database.query('SELECT * FROM audit_log')]);
    expect(everything).not.toContain(SECRET);
    expect(everything).not.toContain('acct_1');
    // Sealed under the configured master key: another key cannot open them.
    await expect(createCredentialsService({ config: { CREDENTIALS_MASTER_KEY: 'a'.repeat(64) }, database: bed.database, audit }).fieldsFor(aliceId, id)).rejects.toThrow();
  });

  it('opens the fields for the executor with the master key it sealed them with', async () => {
    const res = await create(alice, { name: 'SMTP relay', provider: 'smtp', fields: { password: 'p@ss' } });
    expect(res.status).toBe(201);
    const id = (res.body as { data: CredentialView }).data.id;
    const service = createCredentialsService({ config: testConfig(), database: bed.database, audit });
    expect(await service.fieldsFor(aliceId, id)).toEqual({ password: 'p@ss' });
  });

  it('re-seals the fields on PUT when given, and keeps them otherwise', async () => {
    const id = ((await create(alice, { name: 'OpenAI', provider: 'openai', fields: { api_key: 'one' } })).body as { data: CredentialView }).data.id;
    const service = createCredentialsService({ config: testConfig(), database: bed.database, audit });

    const renamed = await request(app)
      .put(`/api/credentials/${id}`)
      .set(as(alice))
      .send({ data: { name: 'OpenAI prod', description: null } });
    expect(renamed.status).toBe(200);
    expect((renamed.body as { data: CredentialView }).data).toMatchObject({ id, name: 'OpenAI prod', description: null, field_names: ['api_key'] });
    expect(await service.fieldsFor(aliceId, id)).toEqual({ api_key: 'one' });

    const rotated = await request(app)
      .put(`/api/credentials/${id}`)
      .set(as(alice))
      .send({ data: { fields: { api_key: 'two', org: 'o-1' } } });
    expect((rotated.body as { data: CredentialView }).data.field_names).toEqual(['api_key', 'org']);
    expect(await service.fieldsFor(aliceId, id)).toEqual({ api_key: 'two', org: 'o-1' });
  });

  it('answers 400 with the spec error body for bad input and stores nothing', async () => {
    const before = ((await bed.database.query('SELECT count(*)::int AS n FROM credentials')) as { n: number }[])[0]!.n;
    for (const body of [
      { data: { provider: 'x', fields: { a: 'b' } } },
      { data: { name: 'x', provider: 'y', fields: { a: 1 } } },
      { data: { name: 'x', provider: 'y' } },
      { data: 'nope' },
      // PostgreSQL cannot hold these: they must be 400, not a 500 from the INSERT.
      { data: { name: 'x\u0000', provider: 'y', fields: { a: 'b' } } },
      { data: { name: 'x', provider: 'y\u0000', fields: { a: 'b' } } },
      { data: { name: 'x', provider: 'y', description: 'd\ud800', fields: { a: 'b' } } },
      // A field named __proto__ would vanish from the stored map instead of being kept or refused.
      { data: { name: 'x', provider: 'y', fields: JSON.parse('{"__proto__": "v", "k": "v"}') as unknown } },
    ]) {
      const res = await create(alice, body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: { status: 400, name: 'BadRequestError', details: { errors: expect.any(Array) } } });
    }
    expect(((await bed.database.query('SELECT count(*)::int AS n FROM credentials')) as { n: number }[])[0]!.n).toBe(before);
    const id = ((await create(alice, { name: 'Fine', provider: 'p', fields: { k: 'v' } })).body as { data: CredentialView }).data.id;
    expect(
      (
        await request(app)
          .put(`/api/credentials/${id}`)
          .set(as(alice))
          .send({ data: { name: 'y\u0000' } })
      ).status,
    ).toBe(400);
  });

  it('is owner-only: another user gets 404 on every route and sees none in the list', async () => {
    const id = ((await create(alice, { name: 'Private', provider: 'p', fields: { k: 'v' } })).body as { data: CredentialView }).data.id;
    expect((await request(app).get(`/api/credentials/${id}`).set(as(bob))).status).toBe(404);
    expect((await request(app).put(`/api/credentials/${id}`).set(as(bob)).send({ name: 'mine now' })).status).toBe(404);
    await stepUp(bob);
    expect((await request(app).delete(`/api/credentials/${id}`).set(as(bob)).set('X-Step-Up-Verified', 'true')).status).toBe(404);
    expect(((await request(app).get('/api/credentials').set(as(bob))).body as { data: unknown[] }).data).toEqual([]);
    expect((await request(app).get('/api/credentials/abc').set(as(alice))).status).toBe(404);
    expect((await request(app).get('/api/credentials')).status).toBe(401);
  });

  it('deletes only after step-up: 403 without it, then {data: {id}} and 404 afterwards', async () => {
    const id = ((await create(alice, { name: 'Doomed', provider: 'p', fields: { k: 'v' } })).body as { data: CredentialView }).data.id;
    const refused = await request(app).delete(`/api/credentials/${id}`).set(as(alice)).set('X-Step-Up-Verified', 'true');
    expect(refused.status).toBe(403);
    expect((await request(app).get(`/api/credentials/${id}`).set(as(alice))).status).toBe(200);

    await stepUp(alice);
    const deleted = await request(app).delete(`/api/credentials/${id}`).set(as(alice)).set('X-Step-Up-Verified', 'true');
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ data: { id } });
    expect((await request(app).get(`/api/credentials/${id}`).set(as(alice))).status).toBe(404);
    await audit.flush();
    const rows = (await bed.database.query("SELECT actor_user_id, details FROM audit_log WHERE action = 'credential.deleted'")) as { actor_user_id: number; details: { credential_id: number } }[];
    expect(rows).toEqual([{ actor_user_id: aliceId, details: { credential_id: id } }]);
  });

  it('binds each sealed value to its credential: a value copied onto another of the owner’s rows does not open', async () => {
    const service = createCredentialsService({ config: testConfig(), database: bed.database, audit });
    const a = await service.create(aliceId, { name: 'A', provider: 'p', description: null, fields: { k: 'value-a' } });
    const b = await service.create(aliceId, { name: 'B', provider: 'p', description: null, fields: { k: 'value-b' } });
    await bed.database.query('UPDATE credentials SET sealed_fields = (SELECT sealed_fields FROM credentials WHERE id = $1) WHERE id = $2', [a.id, b.id]);
    expect(await service.fieldsFor(aliceId, a.id)).toEqual({ k: 'value-a' });
    await expect(service.fieldsFor(aliceId, b.id)).rejects.toThrow();
  });

  it('rotates CREDENTIALS_MASTER_KEY: the previous key reads until credentials:rotate-key re-seals every value under the new one', async () => {
    const [oldKey, newKey] = ['1f'.repeat(32), '2e'.repeat(32)];
    const before = createCredentialsService({ config: { CREDENTIALS_MASTER_KEY: oldKey }, database: bed.database, audit });
    const ids: number[] = [];
    for (const n of [1, 2, 3]) ids.push((await before.create(aliceId, { name: `R${n}`, provider: 'p', description: null, fields: { token: `rot-${n}` } })).id);

    const during = createCredentialsService({ config: { CREDENTIALS_MASTER_KEY: newKey, CREDENTIALS_MASTER_KEY_PREVIOUS: oldKey }, database: bed.database, audit });
    const newOnly = createCredentialsService({ config: { CREDENTIALS_MASTER_KEY: newKey }, database: bed.database, audit });
    expect(await during.fieldsFor(aliceId, ids[0]!)).toEqual({ token: 'rot-1' });
    await expect(newOnly.fieldsFor(aliceId, ids[0]!)).rejects.toThrow();
    // A value written during the rotation is already under the new key.
    await during.update(aliceId, ids[2]!, { fields: { token: 'rot-3b' } });

    const repo = new CredentialsRepository(bed.database);
    const sealer = new CredentialSealer(newKey, oldKey);
    const report = await rotateCredentialKeys(repo, sealer, silentLogger);
    // Rows of the other tests are under the development key, which neither key opens: reported, left alone.
    expect(report.resealed).toBe(2);
    expect(report.unreadable.length).toBe(report.examined - report.resealed - report.current);
    expect(report.unreadable.filter((id) => ids.includes(id))).toEqual([]);
    for (const [i, id] of ids.entries()) expect(await newOnly.fieldsFor(aliceId, id)).toEqual({ token: i === 2 ? 'rot-3b' : `rot-${i + 1}` });
    await expect(before.fieldsFor(aliceId, ids[0]!)).rejects.toThrow();
    const sealed = (await bed.database.query('SELECT sealed_fields FROM credentials WHERE id = ANY($1)', [ids])) as { sealed_fields: string }[];
    for (const row of sealed) expect(row.sealed_fields.startsWith(`v2.${sealer.keyId}.`)).toBe(true);
    // Running it again changes nothing.
    expect((await rotateCredentialKeys(repo, sealer, silentLogger)).resealed).toBe(0);
  });
});
