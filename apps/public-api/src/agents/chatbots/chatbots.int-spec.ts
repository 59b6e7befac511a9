import request from 'supertest';
import { upload } from '../../documents/test-support/documents-kit';
import { openRagKit, type RagKit, settled } from '../../rag/test-support/rag-kit';
import { completeStepUp, newestOutboxMail } from '../../test-support/step-up-mail';
import { buildTestApi } from '../../test-support/test-app';
import type { ChatAnswer, ChatbotView } from './chatbots.service';

let kit: RagKit;
let bot: ChatbotView;
let documentId: number;

const HANDBOOK = [
  'Docflow employee handbook.',
  'Holidays: every employee has twenty-eight days of paid holiday a year, booked through the HR portal.',
  'Expenses: receipts above fifty euros need the approval of a manager before reimbursement.',
].join('\n\n');

function chat(slug: string, key: string | undefined, body: Record<string, unknown>): request.Test {
  const req = request(kit.app).post(`/api/chatbots/${slug}/chat`);
  if (key !== undefined) void req.set('X-Chatbot-Key', key);
  return req.send(body);
}

beforeAll(async () => {
  kit = await openRagKit();
  const up = await upload(kit.app, kit.alice, { content: HANDBOOK, filename: 'handbook.txt', contentType: 'text/plain', fields: { title: 'Employee handbook' } });
  expect(up.status).toBe(201);
  documentId = (up.body as { id: number }).id;
  await request(kit.app)
    .post(`/api/documents/${documentId}/rag-enable`)
    .set('authorization', kit.alice.auth)
    .send({})
    .expect((r) => expect([200, 202]).toContain(r.status));
  expect((await settled(kit, documentId)).rag_processing_status).toBe('completed');
  const created = await request(kit.app)
    .post('/api/chatbots')
    .set('authorization', kit.alice.auth)
    .send({ data: { name: 'HR Helper', welcome_message: 'Ask me about HR', branding: { color: '#0a7' }, rate_limit: 5 } });
  expect(created.status).toBe(201);
  bot = (created.body as { data: ChatbotView }).data;
});

afterAll(async () => {
  await kit?.close();
});

describe('chatbots (spec 4.12)', () => {
  it('creates a chatbot with a slug from its name and a key shown once, kept hashed', async () => {
    expect(bot).toMatchObject({ id: expect.any(Number), name: 'HR Helper', slug: 'hr-helper', active: true, rate_limit: 5, query_count: 0, owner: { id: kit.alice.id } });
    expect(bot.api_key).toMatch(/^cbk_[A-Za-z0-9_-]{40,}$/);
    const read = await request(kit.app).get(`/api/chatbots/${bot.id}`).set('authorization', kit.alice.auth);
    expect(read.status).toBe(200);
    expect((read.body as { data: ChatbotView }).data).not.toHaveProperty('api_key');
    expect(JSON.stringify(await kit.bed.database.query('SELECT * FROM chatbots'))).not.toContain(bot.api_key);
    const list = await request(kit.app).get('/api/chatbots').set('authorization', kit.alice.auth);
    expect((list.body as { data: ChatbotView[] }).data.map((c) => c.id)).toEqual([bot.id]);
    expect(((await request(kit.app).get('/api/chatbots').set('authorization', kit.bob.auth)).body as { data: unknown[] }).data).toEqual([]);
  });

  it('serves its public config without auth', async () => {
    const res = await request(kit.app).get('/api/chatbots/hr-helper/config');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ name: 'HR Helper', slug: 'hr-helper', welcome_message: 'Ask me about HR', branding: { color: '#0a7' } });
    expect((await request(kit.app).get('/api/chatbots/no-such-bot/config')).status).toBe(404);
  });

  it('answers from the owner’s documents with sources, keeping or making a session id', async () => {
    const res = await chat('hr-helper', bot.api_key, { query: 'How many days of paid holiday do employees get?', session_id: 'visitor-1' });
    expect(res.status).toBe(200);
    const body = res.body as ChatAnswer;
    expect(body.session_id).toBe('visitor-1');
    expect(body.answer.toLowerCase()).toContain('twenty-eight days');
    expect(body.sources[0]).toMatchObject({
      title: 'Employee handbook',
      document_id: documentId,
      content: expect.stringContaining('holiday'),
      file_url: expect.any(String),
      signed_url: expect.any(String),
    });
    // Visitors' download links live minutes (CHATBOT_SIGNED_URL_TTL_SECONDS, 300), not the hour of signed URLs.
    const lifetime = Number(new URL(body.sources[0]!.signed_url).searchParams.get('expires')) - Date.now() / 1000;
    expect(lifetime).toBeGreaterThan(240);
    expect(lifetime).toBeLessThanOrEqual(300);
    const fresh = await chat('hr-helper', bot.api_key, { query: 'expenses approval' });
    expect((fresh.body as ChatAnswer).session_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(((await request(kit.app).get(`/api/chatbots/${bot.id}`).set('authorization', kit.alice.auth)).body as { data: ChatbotView }).data.query_count).toBe(2);
  });

  it('refuses no key (401), an unknown slug (404), a wrong key (401), a bad question (400)', async () => {
    expect((await chat('hr-helper', undefined, { query: 'x' })).status).toBe(401);
    expect((await chat('nope', bot.api_key, { query: 'x' })).status).toBe(404);
    expect((await chat('hr-helper', 'cbk_wrong', { query: 'x' })).status).toBe(401);
    const bad = await chat('hr-helper', bot.api_key, { query: '' });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: { status: 400, name: 'BadRequestError' } });
  });

  it('holds the chatbot to its rate_limit a minute (429 with Retry-After)', async () => {
    const other = (await request(kit.app).post('/api/chatbots').set('authorization', kit.alice.auth).send({ name: 'Busy', rate_limit: 1 })).body as { data: ChatbotView };
    expect((await chat(other.data.slug, other.data.api_key, { query: 'holiday' })).status).toBe(200);
    const limited = await chat(other.data.slug, other.data.api_key, { query: 'holiday' });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('counts the rate_limit across processes: a second app over the same database shares the window', async () => {
    const second = buildTestApi(kit.bed, { config: kit.config }).app;
    const busy = (await request(kit.app).post('/api/chatbots').set('authorization', kit.alice.auth).send({ name: 'Shared', rate_limit: 2 })).body as { data: ChatbotView };
    const ask = (target: typeof kit.app) => request(target).post(`/api/chatbots/${busy.data.slug}/chat`).set('X-Chatbot-Key', busy.data.api_key!).send({ query: 'holiday' });
    expect((await ask(kit.app)).status).toBe(200);
    expect((await ask(second)).status).toBe(200);
    const limited = [await ask(kit.app), await ask(second)];
    expect(limited.map((r) => r.status)).toEqual([429, 429]);
    expect((limited[1]!.body as { error: { details: { retry_after: number } } }).error.details.retry_after).toBe(Number(limited[1]!.headers['retry-after']));
  });

  it('checks allowed_origins and active, and takes owner-only changes', async () => {
    const put = await request(kit.app)
      .put(`/api/chatbots/${bot.id}`)
      .set('authorization', kit.alice.auth)
      .send({ data: { allowed_origins: ['*.acme.test'], rate_limit: 100 } });
    expect(put.status).toBe(200);
    expect((await chat('hr-helper', bot.api_key, { query: 'holiday' }).set('Origin', 'https://evil.test')).status).toBe(403);
    expect((await chat('hr-helper', bot.api_key, { query: 'holiday' }).set('Origin', 'https://help.acme.test')).status).toBe(200);
    expect((await request(kit.app).put(`/api/chatbots/${bot.id}`).set('authorization', kit.bob.auth).send({ active: false })).status).toBe(404);
    await request(kit.app).put(`/api/chatbots/${bot.id}`).set('authorization', kit.alice.auth).send({ active: false }).expect(200);
    expect((await chat('hr-helper', bot.api_key, { query: 'holiday' }).set('Origin', 'https://help.acme.test')).status).toBe(403);
    expect((await request(kit.app).get('/api/chatbots/hr-helper/config')).status).toBe(404);
  });

  it('refuses a taken slug (409) and a key regeneration without step-up (403); deletes for the owner', async () => {
    const taken = await request(kit.app).post('/api/chatbots').set('authorization', kit.bob.auth).send({ name: 'Copy', slug: 'hr-helper' });
    expect(taken.status).toBe(409);
    expect((await request(kit.app).post(`/api/chatbots/${bot.id}/regenerate-key`).set('authorization', kit.alice.auth).set('X-Step-Up-Verified', 'true')).status).toBe(403);
    expect((await request(kit.app).delete(`/api/chatbots/${bot.id}`).set('authorization', kit.bob.auth)).status).toBe(404);
    const del = await request(kit.app).delete(`/api/chatbots/${bot.id}`).set('authorization', kit.alice.auth);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ success: true });
    expect((await request(kit.app).get(`/api/chatbots/${bot.id}`).set('authorization', kit.alice.auth)).status).toBe(404);
  });
  it('regenerates the key after step-up: the new key works, the old one no longer', async () => {
    const made = (await request(kit.app).post('/api/chatbots').set('authorization', kit.alice.auth).send({ name: 'Rotating' })).body as { data: ChatbotView };
    await completeStepUp(kit.app, kit.alice.auth, () => newestOutboxMail(kit.bed.outboxDir));
    const res = await request(kit.app).post(`/api/chatbots/${made.data.id}/regenerate-key`).set('authorization', kit.alice.auth).set('X-Step-Up-Verified', 'true');
    expect(res.status).toBe(200);
    const { api_key } = (res.body as { data: { id: number; api_key: string } }).data;
    expect(api_key).not.toBe(made.data.api_key);
    expect((await chat(made.data.slug, api_key, { query: 'holiday' })).status).toBe(200);
    expect((await chat(made.data.slug, made.data.api_key, { query: 'holiday' })).status).toBe(401);
  });

  it('answers 404 for a NUL in a path and 400 for one in a body, never 500', async () => {
    expect((await request(kit.app).get('/api/chatbots/a%00b/config')).status).toBe(404);
    const bad = await request(kit.app)
      .post('/api/chatbots')
      .set('authorization', kit.alice.auth)
      .send({ data: { name: 'a\u0000b' } });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: { status: 400, name: 'BadRequestError', details: { errors: ['data.name: must not contain NUL characters or unpaired UTF-16 surrogates'] } } });
  });
});
