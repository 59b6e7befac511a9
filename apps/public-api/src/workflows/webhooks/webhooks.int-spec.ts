import request from 'supertest';
import { buildPdf } from '../../documents/test-support/fixtures';
import { type DocumentsKit, openDocumentsKit } from '../../documents/test-support/documents-kit';
import { FakeRouter } from '../../test-support/fake-router';
import { buildTestApi } from '../../test-support/test-app';
import { sampleDefinition } from '../executions/test-support/actors';
import { executionEnv, ROUTER_KEY } from '../executions/test-support/execution-api';
import type { TriggerResponse, WebhookView } from './webhooks.service';
import { WebhookAcceptor } from './webhook-accept';

let kit: DocumentsKit;
let router: FakeRouter;
let activityId: number;

interface ErrorBody {
  error: { status: number; name: string; message: string; details: { errors?: string[] } };
}

async function createWebhook(auth: string, body: Record<string, unknown> = {}): Promise<WebhookView> {
  const res = await request(kit.app)
    .post('/api/webhooks')
    .set('authorization', auth)
    .send({ activity: activityId, ...body });
  expect(res.status).toBe(201);
  return (res.body as { data: WebhookView }).data;
}

/**
 * A trigger sent to what the server runs (the request lane, then express): a webhook this process has loaded
 * takes the lane, a first trigger and anything the fast path does not take go through express.
 */
function trigger(id: number | string, secret: string | undefined, body?: Record<string, unknown>): request.Test {
  const req = request(kit.api.listener).post(`/api/webhooks/trigger/${id}`);
  if (secret !== undefined) void req.set('X-Webhook-Secret', secret);
  return body === undefined ? req : req.send(body);
}

/** The job of an accepted trigger: its start follows the answer (docs/decisions.md, "Webhook triggers accepted before their start"). */
async function submittedJob(jobId: string): Promise<NonNullable<ReturnType<FakeRouter['job']>>> {
  for (let i = 0; i < 250; i++) {
    const job = router.job(jobId);
    if (job) return job;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`job ${jobId} was never submitted`);
}

async function count(table: string): Promise<number> {
  return ((await kit.bed.database.query(`SELECT count(*)::int AS n FROM ${table}`)) as { n: number }[])[0]!.n;
}

beforeAll(async () => {
  router = await FakeRouter.start(ROUTER_KEY);
  kit = await openDocumentsKit(executionEnv(router.url));
  const res = await request(kit.app)
    .post('/api/activities')
    .set('authorization', kit.alice.auth)
    .send({ data: { name: 'Intake', workflow_definition: sampleDefinition() } });
  expect(res.status).toBe(201);
  activityId = (res.body as { data: { id: number } }).data.id;
});

afterAll(async () => {
  await kit?.close();
  await router?.close();
});

describe('webhook management (spec 4.9)', () => {
  it('creates a webhook with a 64-hex secret shown once, and lists it without the secret', async () => {
    const created = await createWebhook(kit.alice.auth, { name: 'Intake hook', event_type: 'invoice' });
    expect(created).toMatchObject({
      id: expect.any(Number),
      name: 'Intake hook',
      url: `http://docs.test:1337/api/webhooks/trigger/${created.id}`,
      active: true,
      event_type: 'invoice',
      trigger_count: 0,
      max_file_size_mb: 10,
      accept_files: true,
      auto_enable_rag: false,
      allowed_origins: [],
      createdAt: expect.any(String),
    });
    expect(created.secret_key).toMatch(/^[0-9a-f]{64}$/);
    const list = await request(kit.app).get('/api/webhooks').set('authorization', kit.alice.auth);
    expect(list.status).toBe(200);
    const listed = (list.body as { success: boolean; data: WebhookView[] }).data.find((w) => w.id === created.id);
    expect(listed).toMatchObject({ id: created.id, url: created.url, active: true, trigger_count: 0, last_triggered_at: null, activity: { id: activityId, name: 'Intake' } });
    expect(JSON.stringify(list.body)).not.toContain(created.secret_key);
    const stored = JSON.stringify(await kit.bed.database.query('SELECT * FROM webhooks'));
    expect(stored).not.toContain(created.secret_key);
  });

  it('answers 400 for a bad body or a missing activity, 404 for an activity the caller cannot see', async () => {
    for (const body of [{ activity: undefined }, { max_file_size_mb: 51 }, { allowed_mime_types: ['application/x-msdownload'] }, { accept_files: 'yes' }]) {
      const res = await request(kit.app)
        .post('/api/webhooks')
        .set('authorization', kit.alice.auth)
        .send({ activity: activityId, ...body });
      expect(res.status).toBe(400);
      expect((res.body as ErrorBody).error.details.errors?.length).toBeGreaterThan(0);
    }
    expect((await request(kit.app).post('/api/webhooks').set('authorization', kit.bob.auth).send({ activity: activityId })).status).toBe(404);
  });

  it('answers 400, not 500, for text the database cannot hold (NUL, lone surrogates), on create and on PUT', async () => {
    const webhooks = await count('webhooks');
    for (const body of [{ name: 'a\u0000' }, { event_type: 'e\u0000' }, { allowed_origins: ['x\u0000.test'] }, { name: 'a\ud800' }]) {
      const res = await request(kit.app)
        .post('/api/webhooks')
        .set('authorization', kit.alice.auth)
        .send({ activity: activityId, ...body });
      expect(res.status).toBe(400);
      expect((res.body as ErrorBody).error).toMatchObject({ status: 400, name: 'BadRequestError', details: { errors: [expect.any(String)] } });
    }
    expect(await count('webhooks')).toBe(webhooks);
    const w = await createWebhook(kit.alice.auth);
    expect((await request(kit.app).put(`/api/webhooks/${w.id}`).set('authorization', kit.alice.auth).send({ event_type: 'e\u0000' })).status).toBe(400);
  });

  it('is owner-only: another user gets 404 on every route', async () => {
    const w = await createWebhook(kit.alice.auth);
    expect((await request(kit.app).get(`/api/webhooks/${w.id}`).set('authorization', kit.bob.auth)).status).toBe(404);
    expect((await request(kit.app).put(`/api/webhooks/${w.id}`).set('authorization', kit.bob.auth).send({ active: false })).status).toBe(404);
    expect((await request(kit.app).post(`/api/webhooks/${w.id}/regenerate-secret`).set('authorization', kit.bob.auth)).status).toBe(404);
    expect((await request(kit.app).delete(`/api/webhooks/${w.id}`).set('authorization', kit.bob.auth)).status).toBe(404);
    expect((await request(kit.app).get(`/api/webhooks/${w.id}`).set('authorization', kit.alice.auth)).status).toBe(200);
  });
});

describe('POST /api/webhooks/trigger/{id}', () => {
  it('refuses a missing secret (401), an unknown webhook (404), a wrong secret (401) and an inactive one (403)', async () => {
    const w = await createWebhook(kit.alice.auth);
    const body = { document_url: 'https://files.example/a.pdf' };
    expect((await trigger(w.id, undefined, body)).status).toBe(401);
    expect((await trigger(999_999, w.secret_key, body)).status).toBe(404);
    const wrong = await trigger(w.id, 'f'.repeat(64), body);
    expect(wrong.status).toBe(401);
    expect((wrong.body as ErrorBody).error.name).toBe('UnauthorizedError');
    await request(kit.app)
      .put(`/api/webhooks/${w.id}`)
      .set('authorization', kit.alice.auth)
      .send({ data: { active: false } })
      .expect(200);
    expect((await trigger(w.id, w.secret_key, body)).status).toBe(403);
  });

  it('starts the workflow with the JSON body as inputs and returns a polling token for that execution only', async () => {
    const w = await createWebhook(kit.alice.auth);
    const res = await trigger(w.id, w.secret_key, { document_url: 'https://files.example/a.pdf', priority: 2 });
    expect(res.status).toBe(200);
    const body = res.body as TriggerResponse;
    expect(body).toMatchObject({ success: true, execution_id: expect.any(Number), message: expect.any(String), polling_token: expect.any(String) });
    expect(body).not.toHaveProperty('uploaded_documents');
    const job = await submittedJob(body.job_id);
    expect(job.payload.inputs).toEqual({ document_url: 'https://files.example/a.pdf', priority: 2 });
    expect(job.payload.user_id).toBe(kit.alice.id);

    const polled = await request(kit.app).get(`/api/workflow-executions/${body.execution_id}`).set('authorization', `Bearer ${body.polling_token}`);
    expect(polled.status).toBe(200);
    expect((polled.body as { data: { status: string } }).data.status).toBe('running');
    const other = await trigger(w.id, w.secret_key, { document_url: 'https://files.example/b.pdf' });
    const otherId = (other.body as TriggerResponse).execution_id;
    expect((await request(kit.app).get(`/api/workflow-executions/${otherId}`).set('authorization', `Bearer ${body.polling_token}`)).status).toBe(404);

    const after = (await request(kit.app).get(`/api/webhooks/${w.id}`).set('authorization', kit.alice.auth)).body as { data: WebhookView };
    expect(after.data.trigger_count).toBe(2);
    expect(after.data.last_triggered_at).not.toBeNull();
  });

  it('serves a loaded webhook’s triggers in the request lane, with the answers of the express route', async () => {
    const w = await createWebhook(kit.alice.auth);
    const lookups = jest.spyOn(WebhookAcceptor.prototype, 'lookup');
    const inLane = jest.spyOn(WebhookAcceptor.prototype, 'cachedNow');
    try {
      const body = { document_url: 'https://files.example/a.pdf' };
      const first = await trigger(w.id, w.secret_key, body);
      expect(first.status).toBe(200);
      expect(lookups).toHaveBeenCalledTimes(1); // express's fastTrigger loaded it
      lookups.mockClear();
      inLane.mockClear();
      const second = await trigger(w.id, w.secret_key, body).set('X-Correlation-Id', 'hook-lane-1');
      expect(second.status).toBe(200);
      expect(lookups).not.toHaveBeenCalled();
      expect(inLane).toHaveReturnedWith(expect.objectContaining({ activityId }));
      expect(second.headers['x-correlation-id']).toBe('hook-lane-1');
      expect(second.headers['content-type']).toBe(first.headers['content-type']);
      expect(Object.keys(second.body as object).sort()).toEqual(Object.keys(first.body as object).sort());
      expect((second.body as TriggerResponse).execution_id).toBe((first.body as TriggerResponse).execution_id + 1);
      await submittedJob((second.body as TriggerResponse).job_id);

      // Refusals in the lane and in express alike: a body that is not an object, inputs the schema refuses (the full path's 400), malformed JSON.
      const viaExpress = (b: string) => request(kit.app).post(`/api/webhooks/trigger/${w.id}`).set('X-Webhook-Secret', w.secret_key!).set('Content-Type', 'application/json').send(b);
      const viaLane = (b: string) => request(kit.api.listener).post(`/api/webhooks/trigger/${w.id}`).set('X-Webhook-Secret', w.secret_key!).set('Content-Type', 'application/json').send(b);
      for (const b of ['[1, 2]', '"text"', '{"priority": "high"}', '{"document_url": ', '']) {
        lookups.mockClear();
        const lane = await viaLane(b);
        expect(lookups).not.toHaveBeenCalled();
        const express = await viaExpress(b);
        expect({ body: b, status: lane.status, answer: lane.body as unknown }).toEqual({ body: b, status: express.status, answer: express.body as unknown });
      }
      // What the lane does not admit goes to express: a query string, a wrong secret, no secret.
      lookups.mockClear();
      const third = await request(kit.api.listener).post(`/api/webhooks/trigger/${w.id}?x=1`).set('X-Webhook-Secret', w.secret_key!).send(body);
      expect(third.status).toBe(200);
      expect(lookups).toHaveBeenCalledTimes(1);
      expect((await trigger(w.id, 'f'.repeat(64), body)).status).toBe(401);
      expect((await trigger(w.id, undefined, body)).status).toBe(401);
      // Their executions end, so that the owner's running cap (10) is left to the tests below.
      const ids = [first, second, third].map((r) => (r.body as TriggerResponse).execution_id);
      for (const r of [second, third]) await submittedJob((r.body as TriggerResponse).job_id);
      await kit.bed.database.query("UPDATE workflow_executions SET status = 'completed', completed_at = now() WHERE id = ANY($1)", [ids]);
    } finally {
      lookups.mockRestore();
      inLane.mockRestore();
    }
  });

  it('answers 400 when the inputs do not fit the workflow’s input schema, starting nothing', async () => {
    const w = await createWebhook(kit.alice.auth);
    const executions = await count('workflow_executions');
    const res = await trigger(w.id, w.secret_key, { priority: 'high' });
    expect(res.status).toBe(400);
    expect(await count('workflow_executions')).toBe(executions);
  });

  it('answers 400 for trigger inputs the database cannot hold (NUL, lone surrogates), starting nothing', async () => {
    const w = await createWebhook(kit.alice.auth);
    const executions = await count('workflow_executions');
    for (const body of [
      { document_url: 'https://files.example/a.pdf', note: 'a\u0000b' },
      { document_url: 'https://files.example/a.pdf', deep: { list: ['\udc00'] } },
    ]) {
      const res = await trigger(w.id, w.secret_key, body);
      expect(res.status).toBe(400);
      expect((res.body as ErrorBody).error.details.errors).toEqual([expect.stringMatching(/^(note|deep\.list\[0\]): /)]);
    }
    expect(await count('workflow_executions')).toBe(executions);
  });

  it('stores multipart files as the owner’s documents and passes their ids and URLs as inputs', async () => {
    const w = await createWebhook(kit.alice.auth);
    const pdf = buildPdf([['Invoice 42']]);
    const res = await request(kit.app)
      .post(`/api/webhooks/trigger/${w.id}`)
      .set('X-Webhook-Secret', w.secret_key!)
      .field('document_url', 'https://files.example/form')
      .field('customer', 'ACME')
      .field('priority', '3')
      .attach('invoice', pdf, { filename: 'invoice-42.pdf', contentType: 'application/pdf' });
    expect(res.status).toBe(200);
    const body = res.body as TriggerResponse;
    expect(body.documents_count).toBe(1);
    const [doc] = body.uploaded_documents!;
    expect(doc).toEqual({
      field_name: 'invoice',
      document_id: expect.any(Number),
      file_url: `http://docs.test:1337/api/documents/${doc!.document_id}/download`,
      file_name: 'invoice-42.pdf',
      mime_type: 'application/pdf',
      file_size: pdf.length,
    });
    const inputs = router.job(body.job_id)!.payload.inputs as Record<string, unknown>;
    // priority is an integer in the input schema: the form's text is read as one.
    expect(inputs).toMatchObject({ customer: 'ACME', priority: 3, invoice_document_id: doc!.document_id, invoice_file_url: doc!.file_url, _documents: { invoice: doc }, _uploaded_files: [doc] });
    const owned = await request(kit.app).get(`/api/documents/${doc!.document_id}`).set('authorization', kit.alice.auth);
    expect(owned.status).toBe(200);
  });

  it('refuses files over the webhook’s size limit, of a type it does not allow, or when it takes no files (400, nothing stored)', async () => {
    const small = await createWebhook(kit.alice.auth, { max_file_size_mb: 1, allowed_mime_types: ['application/pdf'] });
    const noFiles = await createWebhook(kit.alice.auth, { accept_files: false });
    const documents = await count('documents');
    const send = (w: WebhookView, content: Buffer, filename: string, type: string) =>
      request(kit.app).post(`/api/webhooks/trigger/${w.id}`).set('X-Webhook-Secret', w.secret_key!).field('document_url', 'x').attach('file', content, { filename, contentType: type });
    const big = Buffer.concat([buildPdf([['big']]), Buffer.alloc(1024 * 1024 + 1, 32)]);
    expect((await send(small, big, 'big.pdf', 'application/pdf')).status).toBe(400);
    expect((await send(small, Buffer.from('plain text here'), 'note.txt', 'text/plain')).status).toBe(400);
    expect((await send(noFiles, buildPdf([['x']]), 'x.pdf', 'application/pdf')).status).toBe(400);
    expect(await count('documents')).toBe(documents);
  });

  it('holds a form’s plain fields to the 1 MB trigger payload (32 fields of 32 KiB): 400 beyond', async () => {
    const w = await createWebhook(kit.alice.auth);
    const big = await request(kit.app)
      .post(`/api/webhooks/trigger/${w.id}`)
      .set('X-Webhook-Secret', w.secret_key!)
      .field('document_url', 'x')
      .field('note', 'n'.repeat(33 * 1024));
    expect(big.status).toBe(400);
    const fine = await request(kit.app)
      .post(`/api/webhooks/trigger/${w.id}`)
      .set('X-Webhook-Secret', w.secret_key!)
      .field('document_url', 'x')
      .field('note', 'n'.repeat(30 * 1024));
    expect(fine.status).toBe(200);
  });

  it('checks allowed_origins against Origin or Referer', async () => {
    const w = await createWebhook(kit.alice.auth, { allowed_origins: ['*.acme.test'] });
    const body = { document_url: 'https://files.example/a.pdf' };
    expect((await trigger(w.id, w.secret_key, body)).status).toBe(403);
    expect((await trigger(w.id, w.secret_key).set('Origin', 'https://evil.test').send(body)).status).toBe(403);
    expect((await trigger(w.id, w.secret_key).set('Origin', 'https://forms.acme.test').send(body)).status).toBe(200);
    expect((await trigger(w.id, w.secret_key).set('Referer', 'https://acme.test/page').send(body)).status).toBe(200);
  });

  it('allows 100 triggers a minute per webhook, then answers 429 with Retry-After; other webhooks are not held up', async () => {
    const w = await createWebhook(kit.alice.auth);
    const other = await createWebhook(kit.alice.auth);
    // Inputs the schema refuses: each call counts, and none starts an execution.
    for (let i = 0; i < 100; i++) expect((await trigger(w.id, w.secret_key, { priority: 'high' })).status).toBe(400);
    const limited = await trigger(w.id, w.secret_key, { priority: 'high' });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect((await trigger(other.id, other.secret_key, { priority: 'high' })).status).toBe(400);
  });

  it("counts the 100 a minute across processes: two apps over one database share each webhook's window", async () => {
    const second = buildTestApi(kit.bed, { config: kit.config }).app;
    const w = await createWebhook(kit.alice.auth);
    const call = (n: number) =>
      request(n % 2 === 0 ? kit.app : second)
        .post(`/api/webhooks/trigger/${w.id}`)
        .set('X-Webhook-Secret', w.secret_key!)
        .send({ priority: 'high' });
    const statuses: number[] = [];
    for (let i = 0; i < 102; i++) statuses.push((await call(i)).status);
    expect(statuses.slice(0, 100).every((s) => s === 400)).toBe(true);
    expect(statuses.slice(100)).toEqual([429, 429]);
  });

  it('audits wrong secrets as one row per webhook and window with the count, whichever process answered', async () => {
    const second = buildTestApi(kit.bed, { config: kit.config });
    const w = await createWebhook(kit.alice.auth);
    const other = await createWebhook(kit.alice.auth);
    const wrong = 'f'.repeat(64);
    for (let i = 0; i < 7; i++)
      expect(
        (
          await request(i % 2 === 0 ? kit.app : second.app)
            .post(`/api/webhooks/trigger/${w.id}`)
            .set('X-Webhook-Secret', wrong)
            .send({})
        ).status,
      ).toBe(401);
    expect((await trigger(other.id, wrong, {})).status).toBe(401);
    const rowsOf = async (id: number) => {
      await kit.api.audit.flush();
      return (await kit.bed.database.query("SELECT actor_user_id, details FROM audit_log WHERE action = 'webhook.signature_mismatch' AND details->>'webhook_id' = $1", [String(id)])) as Array<{
        actor_user_id: number;
        details: Record<string, unknown>;
      }>;
    };
    // Nothing is written while the window is open ...
    await kit.api.audit.closeWindows();
    expect(await rowsOf(w.id)).toEqual([]);
    // ... and one row per webhook once it has ended, by either process.
    // As if five minutes had passed: the window moved back by its length.
    await kit.bed.database.query("UPDATE audit_aggregates SET window_start = window_start - interval '300 seconds', window_end = window_end - interval '300 seconds'");
    await second.audit.closeWindows();
    await kit.api.audit.closeWindows();
    const rows = await rowsOf(w.id);
    expect(rows).toEqual([{ actor_user_id: kit.alice.id, details: { webhook_id: w.id, count: 7, window_start: expect.any(String), window_end: expect.any(String) } }]);
    const d = rows[0]!.details;
    expect(Date.parse(String(d['window_end'])) - Date.parse(String(d['window_start']))).toBe(300_000);
    expect((await rowsOf(other.id)).map((r) => r.details['count'])).toEqual([1]);
  });

  it('rotates the secret: the new one works at once, the previous one during the grace window', async () => {
    const w = await createWebhook(kit.alice.auth);
    const res = await request(kit.app).post(`/api/webhooks/${w.id}/regenerate-secret`).set('authorization', kit.alice.auth);
    expect(res.status).toBe(200);
    const rotated = (res.body as { data: { id: number; secret_key: string; previous_secret_expires_at: string } }).data;
    expect(rotated.secret_key).toMatch(/^[0-9a-f]{64}$/);
    expect(rotated.secret_key).not.toBe(w.secret_key);
    expect(Date.parse(rotated.previous_secret_expires_at) - Date.now()).toBeGreaterThan(23 * 3600 * 1000);
    const body = { document_url: 'https://files.example/a.pdf' };
    expect((await trigger(w.id, rotated.secret_key, body)).status).toBe(200);
    expect((await trigger(w.id, w.secret_key, body)).status).toBe(200);
    await kit.bed.database.query("UPDATE webhooks SET previous_secret_expires_at = now() - interval '1 second' WHERE id = $1", [w.id]);
    expect((await trigger(w.id, w.secret_key, body)).status).toBe(401);
  });

  it('takes a change made by another process at once, though this process has the webhook cached', async () => {
    const w = await createWebhook(kit.alice.auth);
    const body = { document_url: 'https://files.example/a.pdf' };
    expect((await trigger(w.id, w.secret_key, body)).status).toBe(200);
    // Another process rotates the secret (no grace) and then blocks the owner's activity from this webhook: this process hears of neither.
    const fresh = 'f'.repeat(64);
    await kit.bed.database.query('UPDATE webhooks SET secret_hash = encode(sha256($2::bytea), $3), previous_secret_hash = NULL WHERE id = $1', [w.id, fresh, 'hex']);
    expect((await trigger(w.id, w.secret_key, body)).status).toBe(401);
    expect((await trigger(w.id, fresh, body)).status).toBe(200);
    await kit.bed.database.query('UPDATE webhooks SET active = false WHERE id = $1', [w.id]);
    expect((await trigger(w.id, fresh, body)).status).toBe(403);
  });

  it('answers once the execution is committed; a start the router refuses is made later by the sweep', async () => {
    const w = await createWebhook(kit.alice.auth);
    // The earlier tests' executions never end (the fake router runs nothing): out of the running cap's way.
    await kit.bed.database.query("UPDATE workflow_executions SET status = 'completed', completed_at = now() WHERE user_id = $1 AND status IN ('running', 'queued')", [kit.alice.id]);
    router.mode = 'broker_down';
    let res: request.Response;
    try {
      res = await trigger(w.id, w.secret_key, { document_url: 'https://files.example/a.pdf' });
      expect(res.status).toBe(200);
      const id = (res.body as TriggerResponse).execution_id;
      // The in-process start follows the answer and is refused: once it is put back, the execution stays queued, its start pending.
      // (A start sets job_id, and putting it back keeps it: queued with a job id is a start tried and refused.)
      const putBack = async () =>
        ((await kit.bed.database.query("SELECT status = 'queued' AND job_id IS NOT NULL AS back FROM workflow_executions WHERE id = $1", [id])) as { back: boolean }[])[0]!.back;
      for (let i = 0; i < 250 && !(await putBack()); i++) await new Promise((r) => setTimeout(r, 20));
      for (let i = 0; i < 10; i++) {
        const rows = (await kit.bed.database.query('SELECT status, start_pending FROM workflow_executions WHERE id = $1', [id])) as { status: string; start_pending: boolean }[];
        expect(rows[0]).toMatchObject({ status: 'queued', start_pending: true });
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(router.job((res.body as TriggerResponse).job_id)).toBeUndefined();
    } finally {
      router.mode = 'queue';
    }
    // As if its process had died: the workers role's sweep (every 5 s) starts pending executions older than 30 s.
    await kit.bed.database.query("UPDATE workflow_executions SET created_at = created_at - interval '1 minute' WHERE id = $1", [(res.body as TriggerResponse).execution_id]);
    expect(await kit.api.sweepPendingWebhookStarts()).toBeGreaterThanOrEqual(1);
    for (let i = 0; i < 250 && !router.job((res.body as TriggerResponse).job_id); i++) await new Promise((r) => setTimeout(r, 20));
    expect(router.job((res.body as TriggerResponse).job_id)).toBeDefined();
    const rows = (await kit.bed.database.query('SELECT status FROM workflow_executions WHERE id = $1', [(res.body as TriggerResponse).execution_id])) as { status: string }[];
    expect(rows[0]!.status).toBe('running');
  });

  it('submits again, once, the job of an execution started but never submitted (its process died in between), by webhook or by hand, and not one with a result', async () => {
    const w = await createWebhook(kit.alice.auth);
    await kit.bed.database.query("UPDATE workflow_executions SET status = 'completed', completed_at = now() WHERE user_id = $1 AND status IN ('running', 'queued')", [kit.alice.id]);
    const ids: TriggerResponse[] = [];
    router.mode = 'broker_down';
    try {
      for (let i = 0; i < 2; i++) ids.push((await trigger(w.id, w.secret_key, { document_url: 'https://files.example/a.pdf' })).body as TriggerResponse);
      // Let the refused in-process starts finish (they put their records back to queued).
      await new Promise((r) => setTimeout(r, 300));
    } finally {
      router.mode = 'queue';
    }
    // As a start that committed `running` two minutes ago in a process killed before the router call; the second one has had a result since.
    for (const [i, t] of ids.entries()) {
      await kit.bed.database.query(
        `UPDATE workflow_executions SET status = 'running', job_id = $2, started_at = now() - interval '2 minutes',
                last_progress_at = now() - interval '2 minutes' + ($3 * interval '1 minute'), last_sequence = CASE WHEN $3 = 1 THEN 1 END WHERE id = $1`,
        [t.execution_id, t.job_id, i],
      );
    }
    // A start by hand killed the same way: created through the API, marked running two minutes ago with its job id.
    const created = await request(kit.app)
      .post('/api/workflow-executions')
      .set('authorization', kit.alice.auth)
      .send({ data: { activity: activityId, inputs: { document_url: 'https://files.example/b.pdf' } } });
    expect(created.status).toBe(201);
    const manualId = (created.body as { data: { id: number } }).data.id;
    const manualJob = `wf_${manualId}`;
    await kit.bed.database.query(
      `UPDATE workflow_executions SET status = 'running', job_id = $2, started_at = now() - interval '2 minutes', last_progress_at = now() - interval '2 minutes' WHERE id = $1`,
      [manualId, manualJob],
    );
    expect(router.job(ids[0]!.job_id)).toBeUndefined();
    expect(router.job(manualJob)).toBeUndefined();
    expect(await kit.api.sweepPendingWebhookStarts()).toBe(2);
    expect(router.job(ids[0]!.job_id)?.payload).toMatchObject({ execution_id: ids[0]!.execution_id, inputs: { document_url: 'https://files.example/a.pdf' } });
    expect(router.job(manualJob)?.payload).toMatchObject({ execution_id: manualId, inputs: { document_url: 'https://files.example/b.pdf' } });
    expect(router.job(ids[1]!.job_id)).toBeUndefined();
    // Once: a job merely waiting behind a long queue is not published again on every sweep.
    expect(await kit.api.sweepPendingWebhookStarts()).toBe(0);
  });

  it('is gone after DELETE', async () => {
    const w = await createWebhook(kit.alice.auth);
    const del = await request(kit.app).delete(`/api/webhooks/${w.id}`).set('authorization', kit.alice.auth);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ success: true, data: { id: w.id } });
    expect((await trigger(w.id, w.secret_key, { document_url: 'x' })).status).toBe(404);
  });
});
