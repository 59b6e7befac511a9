import request from 'supertest';
import { type DocumentsKit, openDocumentsKit } from '../../documents/test-support/documents-kit';
import { FakeRouter } from '../../test-support/fake-router';
import { sampleDefinition } from '../executions/test-support/actors';
import { executionEnv, ROUTER_KEY } from '../executions/test-support/execution-api';
import { QUOTA_FIGURE_TTL_MS } from './webhook-accept';
import type { TriggerResponse, WebhookView } from './webhooks.service';

// The monthly executions quota is answered at the trigger (docs/decisions.md, "Webhook triggers: the monthly
// quota at the trigger"): a 429 quota_exceeded like a refused start, not an accepted execution failed `not_started`.
let kit: DocumentsKit;
let router: FakeRouter;

beforeAll(async () => {
  router = await FakeRouter.start(ROUTER_KEY);
  kit = await openDocumentsKit(executionEnv(router.url, { EXECUTION_QUOTA_MONTHLY: '3' }));
});

afterAll(async () => {
  await kit?.close();
  await router?.close();
});

async function one<T>(sql: string, params: unknown[] = []): Promise<T> {
  return ((await kit.bed.database.query(sql, params)) as T[])[0]!;
}

/** An accepted trigger's start follows its answer: wait until the router has its job (the execution is then running, its quota counted). */
async function submitted(jobId: string): Promise<void> {
  for (let i = 0; i < 250 && !router.job(jobId); i++) await new Promise((r) => setTimeout(r, 20));
  if (!router.job(jobId)) throw new Error(`job ${jobId} was never submitted`);
}

it('answers 429 quota_exceeded at the trigger once the month’s executions are used up, creating nothing, and admits again when the quota is raised', async () => {
  const created = await request(kit.app)
    .post('/api/activities')
    .set('authorization', kit.alice.auth)
    .send({ data: { name: 'Quota', workflow_definition: sampleDefinition() } });
  expect(created.status).toBe(201);
  const hook = await request(kit.app)
    .post('/api/webhooks')
    .set('authorization', kit.alice.auth)
    .send({ activity: (created.body as { data: { id: number } }).data.id });
  const w = (hook.body as { data: WebhookView }).data;
  const fire = () => request(kit.app).post(`/api/webhooks/trigger/${w.id}`).set('X-Webhook-Secret', w.secret_key!).send({ document_url: 'https://files.example/a.pdf' });

  for (let i = 0; i < 3; i++) {
    const res = await fire();
    expect(res.status).toBe(200);
    await submitted((res.body as TriggerResponse).job_id);
  }
  const executions = (await one<{ n: number }>('SELECT count(*)::int AS n FROM workflow_executions')).n;
  for (let i = 0; i < 2; i++) {
    const refused = await fire();
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ error: { status: 429, name: 'TooManyRequestsError', details: { code: 'quota_exceeded', quota: 'executions', used: 3, limit: 3 } } });
    expect(refused.header['retry-after']).toMatch(/^\d+$/);
  }
  expect((await one<{ n: number }>('SELECT count(*)::int AS n FROM workflow_executions')).n).toBe(executions);
  expect((await one<{ n: number }>("SELECT count(*)::int AS n FROM workflow_executions WHERE status = 'failed'")).n).toBe(0);
  expect((await one<{ executions: number }>('SELECT executions FROM user_quota_periods WHERE user_id = $1', [kit.alice.id])).executions).toBe(3);
  await kit.api.audit.flush();
  expect((await one<{ n: number }>("SELECT count(*)::int AS n FROM audit_log WHERE action = 'quota.exceeded' AND actor_user_id = $1", [kit.alice.id])).n).toBeGreaterThanOrEqual(1);

  // An administrator raises the quota; once the process's figure is older than its TTL, the next batch reads it.
  await kit.bed.database.query('INSERT INTO user_quotas (user_id, executions_monthly) VALUES ($1, 4)', [kit.alice.id]);
  await new Promise((r) => setTimeout(r, QUOTA_FIGURE_TTL_MS + 50));
  const again = await fire();
  expect(again.status).toBe(200);
  await submitted((again.body as TriggerResponse).job_id);
  expect((await fire()).status).toBe(429);
});

it('admits no more triggers of one batch than the quota has room for', async () => {
  const created = await request(kit.app)
    .post('/api/activities')
    .set('authorization', kit.bob.auth)
    .send({ data: { name: 'Quota batch', workflow_definition: sampleDefinition() } });
  const hook = await request(kit.app)
    .post('/api/webhooks')
    .set('authorization', kit.bob.auth)
    .send({ activity: (created.body as { data: { id: number } }).data.id });
  const w = (hook.body as { data: WebhookView }).data;
  const answers = await Promise.all(
    Array.from({ length: 8 }, () => request(kit.app).post(`/api/webhooks/trigger/${w.id}`).set('X-Webhook-Secret', w.secret_key!).send({ document_url: 'https://files.example/a.pdf' })),
  );
  // A start in progress (its quota taken, its row not yet running) may be counted twice for a moment, so a batch can admit fewer than the room left, never more.
  const admitted = answers.filter((a) => a.status === 200).length;
  expect(admitted).toBeGreaterThanOrEqual(1);
  expect(admitted).toBeLessThanOrEqual(3);
  for (const refused of answers.filter((a) => a.status !== 200)) expect(refused.body).toMatchObject({ error: { status: 429, details: { code: 'quota_exceeded', limit: 3 } } });
  expect((await one<{ n: number }>('SELECT count(*)::int AS n FROM workflow_executions WHERE user_id = $1', [kit.bob.id])).n).toBe(admitted);
});
