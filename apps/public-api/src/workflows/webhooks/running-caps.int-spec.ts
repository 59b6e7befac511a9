import request from 'supertest';
import { type DocumentsKit, openDocumentsKit } from '../../documents/test-support/documents-kit';
import { FakeRouter } from '../../test-support/fake-router';
import { sampleDefinition } from '../executions/test-support/actors';
import { executionEnv, ROUTER_KEY } from '../executions/test-support/execution-api';
import type { WebhookView } from './webhooks.service';

// Issue #16 item 5: spec 8's 10 running executions per user holds for webhook-triggered starts
// (WEBHOOK_MAX_RUNNING_EXECUTIONS_PER_USER); starts by hand have their own cap (MAX_RUNNING_EXECUTIONS_PER_USER).
let kit: DocumentsKit;
let router: FakeRouter;

beforeAll(async () => {
  router = await FakeRouter.start(ROUTER_KEY);
  kit = await openDocumentsKit(executionEnv(router.url, { MAX_RUNNING_EXECUTIONS_PER_USER: '6', WEBHOOK_MAX_RUNNING_EXECUTIONS_PER_USER: '2' }));
});

afterAll(async () => {
  await kit?.close();
  await router?.close();
});

async function activity(): Promise<number> {
  const res = await request(kit.app)
    .post('/api/activities')
    .set('authorization', kit.alice.auth)
    .send({ data: { name: 'Capped', workflow_definition: sampleDefinition() } });
  expect(res.status).toBe(201);
  return (res.body as { data: { id: number } }).data.id;
}

async function startByHand(activityId: number): Promise<number> {
  const created = await request(kit.app).post('/api/workflow-executions').set('authorization', kit.alice.auth).send({ activity: activityId });
  expect(created.status).toBe(201);
  const id = (created.body as { data: { id: number } }).data.id;
  const res = await request(kit.app)
    .post(`/api/workflow-executions/${id}/execute`)
    .set('authorization', kit.alice.auth)
    .send({ inputs: { document_url: 'https://files.example/a.pdf' } });
  return res.status;
}

it('caps webhook-triggered starts and starts by hand separately, both counting every running execution of the user', async () => {
  const activityId = await activity();
  const hook = await request(kit.app).post('/api/webhooks').set('authorization', kit.alice.auth).send({ activity: activityId });
  const w = (hook.body as { data: WebhookView }).data;
  const fire = () => request(kit.app).post(`/api/webhooks/trigger/${w.id}`).set('X-Webhook-Secret', w.secret_key!).send({ document_url: 'https://files.example/a.pdf' });

  const triggered = [(await fire()).status, (await fire()).status, (await fire()).status];
  expect(triggered.slice(0, 2).every((s) => s >= 200 && s < 300)).toBe(true);
  expect(triggered[2]).toBe(429);

  // Two running: starts by hand go on up to their own cap of 6.
  const byHand: number[] = [];
  for (let i = 0; i < 5; i++) byHand.push(await startByHand(activityId));
  expect(byHand).toEqual([200, 200, 200, 200, 429]);
  const running = (await kit.bed.database.query("SELECT count(*)::int AS n FROM workflow_executions WHERE status = 'running'")) as { n: number }[];
  expect(running[0]!.n).toBe(6);
});
