import request from 'supertest';
import type express from 'express';
import { createMailer, type Mailer } from '@docflow/mail';
import { LoopbackSmtp } from '@docflow/testing';
import { buildTestApi, openTestBed, recordingLogger, type TestBed, testConfig } from '../../test-support/test-app';
import { FakeRouter } from '../../test-support/fake-router';
import type { PublicApi } from '../../app';
import { QuotasRepository } from './quotas.repository';
import { type Actor, type Actors, createActor, createActors } from '../../workflows/executions/test-support/actors';
import { executionEnv, ExecutionApi } from '../../workflows/executions/test-support/execution-api';

let bed: TestBed;
let router: FakeRouter;
let smtp: LoopbackSmtp;
let mailer: Mailer;
let built: PublicApi;
let app: express.Express;
let api: ExecutionApi;
let actors: Actors;

interface ErrorBody {
  error: { status: number; name: string; message: string; details: Record<string, unknown> };
}

interface AuditRow {
  action: string;
  actor_user_id: number | null;
  details: Record<string, unknown>;
}

async function auditRows(action: string): Promise<AuditRow[]> {
  await built.audit.flush();
  return (await bed.database.query('SELECT action, actor_user_id, details FROM audit_log WHERE action = $1 ORDER BY id', [action])) as AuditRow[];
}

const getQuotas = (as: Actor, userId: number) => request(app).get(`/api/admin/users/${userId}/quotas`).set('Authorization', as.auth);
const putQuotas = (as: Actor, userId: number, data: unknown) => request(app).put(`/api/admin/users/${userId}/quotas`).set('Authorization', as.auth).send({ data });
const usage = (as: Actor) => request(app).get('/api/users/me/usage').set('Authorization', as.auth);
const me = (as: Actor) => request(app).get('/api/users/me').set('Authorization', as.auth);
const uploadText = (as: Actor, bytes: number, name: string) =>
  request(app).post('/api/documents/upload').set('Authorization', as.auth).attach('file', Buffer.alloc(bytes, 'a'), { filename: name, contentType: 'text/plain' });

/** Mails that arrived for `address` so far, after waiting for the background ones to land. */
async function mailsTo(address: string, atLeast = 0): Promise<string[]> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const raws = smtp.received.filter((m) => m.to.includes(address)).map((m) => m.raw);
    if (raws.length >= atLeast || Date.now() > deadline) return raws;
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  bed = await openTestBed();
  router = await FakeRouter.start(executionEnv('').ROUTER_API_KEY!);
  smtp = await LoopbackSmtp.start();
  const logger = recordingLogger();
  mailer = createMailer({ smtpUrl: smtp.url, outboxDir: bed.outboxDir, from: 'Docflow <no-reply@docflow.local>', logger });
  // Defaults: 1 MB of storage, 100 executions and $5 of LLM cost a month.
  built = buildTestApi(bed, { config: testConfig(executionEnv(router.url, { STORAGE_QUOTA_MB: '1', EXECUTION_QUOTA_MONTHLY: '100', LLM_COST_QUOTA_MONTHLY_CENTS: '500' })), mailer, logger });
  app = built.app;
  api = new ExecutionApi(app);
  actors = await createActors(bed.database);
});

afterAll(async () => {
  mailer?.close();
  await smtp?.stop();
  await router?.close();
  await bed?.close();
});

describe('admin quota routes', () => {
  it('shows the defaults and usage, sets overrides (audited quota.update with before and after), and null returns one to the default', async () => {
    const carol = await createActor(bed.database, 'carol');
    const first = await getQuotas(actors.admin, carol.id);
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({
      user_id: carol.id,
      overrides: { storage_bytes: null, executions_monthly: null, llm_cost_monthly: null },
      defaults: { storage_bytes: 1024 * 1024, executions_monthly: 100, llm_cost_monthly: 5 },
      quotas: {
        storage: { used: 0, limit: 1024 * 1024, unit: 'bytes', warning: false, exceeded: false },
        executions: { used: 0, limit: 100, unit: 'executions' },
        llm_cost: { used: 0, limit: 5, unit: 'usd' },
      },
      warnings: [],
    });

    const set = await putQuotas(actors.admin, carol.id, { storage_bytes: 2048, executions_monthly: 3, llm_cost_monthly: 1.25 });
    expect(set.status).toBe(200);
    expect(set.body.data.overrides).toEqual({ storage_bytes: 2048, executions_monthly: 3, llm_cost_monthly: 1.25 });
    expect(set.body.data.quotas).toMatchObject({ storage: { limit: 2048 }, executions: { limit: 3 }, llm_cost: { limit: 1.25 } });

    const reset = await putQuotas(actors.admin, carol.id, { executions_monthly: null });
    expect(reset.status).toBe(200);
    // Left out: kept; null: the default again.
    expect(reset.body.data.overrides).toEqual({ storage_bytes: 2048, executions_monthly: null, llm_cost_monthly: 1.25 });
    expect(reset.body.data.quotas.executions.limit).toBe(100);

    const rows = (await auditRows('quota.update')).filter((r) => r.details['user_id'] === carol.id);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({
      actor_user_id: actors.admin.id,
      details: { before: { storage_bytes: 'default', executions_monthly: 'default', llm_cost_monthly: 'default' }, after: { storage_bytes: 2048, executions_monthly: 3, llm_cost_monthly: 1.25 } },
    });
    expect(rows[1]!.details).toMatchObject({ before: { executions_monthly: 3 }, after: { executions_monthly: 'default', storage_bytes: 2048 } });
  });

  it('is for super administrators only; unknown users are 404; bad bodies are 400 naming the fields', async () => {
    expect((await getQuotas(actors.alice, actors.bob.id)).status).toBe(403);
    expect((await putQuotas(actors.alice, actors.alice.id, { executions_monthly: 1000 })).status).toBe(403);
    expect((await getQuotas(actors.admin, 999999)).status).toBe(404);
    expect((await putQuotas(actors.admin, 999999, { executions_monthly: 1 })).status).toBe(404);

    const bad = await putQuotas(actors.admin, actors.bob.id, { storage_bytes: -1, executions_monthly: 1.5, colour: 'red' });
    expect(bad.status).toBe(400);
    expect((bad.body as ErrorBody).error.details['errors']).toEqual([expect.stringContaining('colour')]);
    const invalid = await putQuotas(actors.admin, actors.bob.id, { storage_bytes: -1, executions_monthly: 1.5 });
    expect(invalid.status).toBe(400);
    const errors = (invalid.body as ErrorBody).error.details['errors'] as string[];
    expect(errors.some((e) => e.startsWith('storage_bytes'))).toBe(true);
    expect(errors.some((e) => e.startsWith('executions_monthly'))).toBe(true);
    expect((await putQuotas(actors.admin, actors.bob.id, {})).status).toBe(400);
  });
});

describe('storage quota set by an administrator', () => {
  it('refuses uploads past it, and warns at 80 % once a month: in /users/me, in the usage, and by one mail', async () => {
    const dora = await createActor(bed.database, 'dora');
    await putQuotas(actors.admin, dora.id, { storage_bytes: 1000 }).expect(200);

    expect((await me(dora)).body).toMatchObject({ id: dora.id, quota_warnings: [] });
    expect((await uploadText(dora, 500, 'half.txt')).status).toBe(201);
    expect(await mailsTo('dora@docflow.test')).toHaveLength(0);

    const over = await uploadText(dora, 600, 'too-much.txt');
    expect(over.status).toBe(400);
    expect((over.body as ErrorBody).error.details).toMatchObject({ code: 'quota_exceeded', quota_bytes: 1000, used_bytes: 500 });

    const crossing = await uploadText(dora, 350, 'crossing.txt');
    expect(crossing.status).toBe(201);
    expect(crossing.body.warning).toMatchObject({ code: 'quota_warning', used_bytes: 850, quota_bytes: 1000 });

    const mails = await mailsTo('dora@docflow.test', 1);
    expect(mails).toHaveLength(1);
    expect(mails[0]).toContain('Subject: Docflow: you have used 85% of your storage quota');

    expect((await me(dora)).body.quota_warnings).toEqual(['storage']);
    const used = await usage(dora);
    expect(used.status).toBe(200);
    expect(used.body.data.quotas.storage).toEqual({ used: 850, limit: 1000, unit: 'bytes', ratio: 0.85, warning: true, exceeded: false });

    // Still above 80 %: no second mail this month.
    expect((await uploadText(dora, 100, 'more.txt')).status).toBe(201);
    await usage(dora);
    await new Promise((r) => setTimeout(r, 300));
    expect(await mailsTo('dora@docflow.test')).toHaveLength(1);
    expect((await auditRows('quota.warning')).filter((r) => r.actor_user_id === dora.id)).toHaveLength(1);
  });
});

describe('monthly execution quota', () => {
  it('counts starts in the month, refuses past the limit with 429 quota_exceeded (audited), and warns by mail', async () => {
    const erin = await createActor(bed.database, 'erin');
    await putQuotas(actors.admin, erin.id, { executions_monthly: 2 }).expect(200);
    await api.started(erin);
    expect((await usage(erin)).body.data.quotas.executions).toMatchObject({ used: 1, limit: 2, ratio: 0.5, warning: false });
    await api.started(erin);

    const third = await api.createExecution(erin, await api.createActivity(erin));
    const refused = await api.execute(erin, third);
    expect(refused.status).toBe(429);
    expect((refused.body as ErrorBody).error).toMatchObject({
      name: 'TooManyRequestsError',
      details: { code: 'quota_exceeded', quota: 'executions', used: 2, limit: 2, retry_after: expect.any(Number) },
    });
    // The refused execution stays queued: it may start next month or after the quota is raised.
    const rows = (await bed.database.query('SELECT status FROM workflow_executions WHERE id = $1', [third])) as { status: string }[];
    expect(rows[0]!.status).toBe('queued');
    expect((await auditRows('quota.exceeded')).filter((r) => r.actor_user_id === erin.id)).toEqual([
      expect.objectContaining({ details: expect.objectContaining({ quota: 'executions', used: 2, limit: 2 }) }),
    ]);

    const mails = await mailsTo('erin@docflow.test', 1);
    expect(mails).toHaveLength(1);
    expect(mails[0]).toContain('Subject: Docflow: you have used 100% of your monthly workflow executions');

    await putQuotas(actors.admin, erin.id, { executions_monthly: 3 }).expect(200);
    expect((await api.execute(erin, third)).status).toBe(200);
    expect((await usage(erin)).body.data.quotas.executions).toMatchObject({ used: 3, limit: 3, exceeded: true });
  });

  it('counts concurrent starts once each and refuses exactly those past the limit (one statement per start, issue #16)', async () => {
    const hana = await createActor(bed.database, 'hana');
    await putQuotas(actors.admin, hana.id, { executions_monthly: 3 }).expect(200);
    const activity = await api.createActivity(hana);
    const ids = await Promise.all(Array.from({ length: 7 }, () => api.createExecution(hana, activity)));
    const statuses = (await Promise.all(ids.map((id) => api.execute(hana, id)))).map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 200, 429, 429, 429, 429]);
    expect((await usage(hana)).body.data.quotas.executions).toMatchObject({ used: 3, limit: 3, exceeded: true });
    const periods = (await bed.database.query('SELECT executions FROM user_quota_periods WHERE user_id = $1', [hana.id])) as { executions: number }[];
    expect(periods).toEqual([{ executions: 3 }]);
  });

  it('gives a start back when the start itself fails', async () => {
    const fred = await createActor(bed.database, 'fred');
    await putQuotas(actors.admin, fred.id, { executions_monthly: 1 }).expect(200);
    const id = await api.createExecution(fred, await api.createActivity(fred));
    // Invalid inputs: 400, not counted.
    expect((await api.execute(fred, id, { inputs: 'nope' })).status).toBe(400);
    expect((await usage(fred)).body.data.quotas.executions.used).toBe(0);
    expect((await api.execute(fred, id)).status).toBe(200);
  });
});

describe('monthly LLM cost quota', () => {
  it('adds up the cost recorded on the month’s executions and refuses new starts and chatbot answers once it is reached', async () => {
    const gina = await createActor(bed.database, 'gina');
    await putQuotas(actors.admin, gina.id, { llm_cost_monthly: 0.5 }).expect(200);
    const id = await api.started(gina);
    // The cost the results applied to the execution (sum of its steps' LLM costs).
    await bed.database.query('UPDATE workflow_executions SET total_cost = 0.42 WHERE id = $1', [id]);
    const cost = (await usage(gina)).body.data.quotas.llm_cost;
    expect(cost).toMatchObject({ limit: 0.5, unit: 'usd', warning: true, exceeded: false });
    expect(cost.used).toBeCloseTo(0.42, 6);
    expect((await mailsTo('gina@docflow.test', 1))[0]).toContain('Subject: Docflow: you have used 84% of your monthly LLM cost quota');

    // Last month's cost does not count.
    await bed.database.query("UPDATE workflow_executions SET total_cost = 10, created_at = now() - interval '40 days' WHERE id = $1", [id]);
    expect((await usage(gina)).body.data.quotas.llm_cost.used).toBe(0);
    await bed.database.query('UPDATE workflow_executions SET total_cost = 0.6, created_at = now() WHERE id = $1', [id]);

    const next = await api.createExecution(gina, await api.createActivity(gina));
    const refused = await api.execute(gina, next);
    expect(refused.status).toBe(429);
    expect((refused.body as ErrorBody).error.details).toMatchObject({ code: 'quota_exceeded', quota: 'llm_cost', limit: 0.5 });

    const bot = await request(app)
      .post('/api/chatbots')
      .set('Authorization', gina.auth)
      .send({ data: { name: 'Help desk' } });
    expect(bot.status).toBe(201);
    const chat = await request(app).post(`/api/chatbots/${bot.body.data.slug}/chat`).set('X-Chatbot-Key', bot.body.data.api_key).send({ query: 'hello?' });
    expect(chat.status).toBe(429);
    expect((chat.body as ErrorBody).error.details).toMatchObject({ quota: 'llm_cost' });

    // The caller's own model calls in the public API too.
    const rag = await request(app).post('/api/rag/query').set('Authorization', gina.auth).send({ query: 'What is due?' });
    expect(rag.status).toBe(429);
    expect(rag.headers['retry-after']).toMatch(/^\d+$/);
    const rtio = await request(app)
      .post('/api/prompts/generate-rtio')
      .set('Authorization', gina.auth)
      .send({ document_id: 1, classification_result: { document_type: 'invoice', category: 'finance', key_features: ['total'], confidence: 0.9 } });
    expect(rtio.status).toBe(429);
    // Others are not concerned.
    expect((await request(app).post('/api/rag/query').set('Authorization', actors.bob.auth).send({ query: 'What is due?' })).status).not.toBe(429);
  });
});

describe('QuotasRepository with concurrent callers (grouped statements)', () => {
  it('reads each caller its own overrides', async () => {
    const repo = new QuotasRepository(bed.database);
    const [free, capped] = [await createActor(bed.database, 'grouped-free'), await createActor(bed.database, 'grouped-capped')];
    await bed.database.query('INSERT INTO user_quotas (user_id, executions_monthly) VALUES ($1, 3)', [capped.id]);
    const reads = await Promise.all([repo.overrides(free.id), repo.overrides(capped.id), repo.overrides(free.id)]);
    expect(reads.map((o) => o.executionsMonthly)).toEqual([null, 3, null]);
  });
});

describe('the executions quota counted in the start (issue #16, one commit per start)', () => {
  it('counts concurrent starts of two users exactly, each against their own limit, in the starts’ own statements', async () => {
    const [wide, capped] = [await createActor(bed.database, 'fold-wide'), await createActor(bed.database, 'fold-capped')];
    await putQuotas(actors.admin, capped.id, { executions_monthly: 3 }).expect(200);
    const [wideActivity, cappedActivity] = [await api.createActivity(wide), await api.createActivity(capped)];
    const wideIds = await Promise.all(Array.from({ length: 5 }, () => api.createExecution(wide, wideActivity)));
    const cappedIds = await Promise.all(Array.from({ length: 5 }, () => api.createExecution(capped, cappedActivity)));
    const statuses = await Promise.all([...wideIds.map((id) => api.execute(wide, id)), ...cappedIds.map((id) => api.execute(capped, id))]);
    expect(statuses.slice(0, 5).map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(
      statuses
        .slice(5)
        .map((r) => r.status)
        .sort(),
    ).toEqual([200, 200, 200, 429, 429]);
    expect((await usage(wide)).body.data.quotas.executions).toMatchObject({ used: 5, limit: 100 });
    expect((await usage(capped)).body.data.quotas.executions).toMatchObject({ used: 3, limit: 3, exceeded: true });
  });

  it('gives the start back when the router does not take its job, and counts it when it is started again', async () => {
    const ivan = await createActor(bed.database, 'ivan');
    await putQuotas(actors.admin, ivan.id, { executions_monthly: 1 }).expect(200);
    const id = await api.createExecution(ivan, await api.createActivity(ivan));
    router.mode = 'broker_down';
    try {
      expect((await api.execute(ivan, id)).status).toBe(503);
    } finally {
      router.mode = 'queue';
    }
    const rows = (await bed.database.query('SELECT status FROM workflow_executions WHERE id = $1', [id])) as { status: string }[];
    expect(rows[0]!.status).toBe('queued');
    expect((await usage(ivan)).body.data.quotas.executions.used).toBe(0);
    expect((await api.execute(ivan, id)).status).toBe(200);
    expect((await usage(ivan)).body.data.quotas.executions).toMatchObject({ used: 1, limit: 1 });
  });
});
