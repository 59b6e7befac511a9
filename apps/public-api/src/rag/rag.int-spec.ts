import request from 'supertest';
import { signServiceToken } from '@docflow/internal-auth';
import { Metrics, silentLogger } from '@docflow/service-kit';
import { buildDocx, buildPdf } from '../documents/test-support/fixtures';
import { type Actor, download, upload, type UploadBody } from '../documents/test-support/documents-kit';
import { createRagModule } from './rag.module';
import type { EnableResult, RagAnswer } from './rag.service';
import { openRagKit, type RagKit, ragStatus, SERVICE_KEY, settled, until } from './test-support/rag-kit';

jest.setTimeout(60000);

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
let kit: RagKit;

beforeAll(async () => {
  kit = await openRagKit();
});

afterAll(async () => {
  await kit?.close();
});

/** Lines of filler text about a topic, short enough for a PDF line. */
function filler(topic: string, n: number): string[] {
  return Array.from({ length: n }, (_, i) => `The ${topic} guideline item ${i + 1} applies to every team member.`);
}

async function uploadDoc(actor: Actor, content: Buffer | string, filename: string, contentType: string, fields: Record<string, string> = {}): Promise<number> {
  const res = await upload(kit.app, actor, { content, filename, contentType, fields });
  if (res.status !== 201) throw new Error(`upload answered ${res.status}: ${res.text}`);
  return (res.body as UploadBody).id;
}

function enable(actor: Actor, id: number, body: Record<string, unknown> = {}): request.Test {
  return request(kit.app).post(`/api/documents/${id}/rag-enable`).set('authorization', actor.auth).send(body);
}

async function indexed(actor: Actor, id: number): Promise<void> {
  const res = await enable(actor, id);
  expect(res.status).toBe(202);
  const done = await settled(kit, id);
  expect(done).toMatchObject({ rag_processing_status: 'completed', ragStatus: 'enabled', ragEnabled: true, rag_error: null });
}

async function ask(actor: Actor, query: string, topK?: number): Promise<RagAnswer> {
  const res = await request(kit.app)
    .post('/api/rag/query')
    .set('authorization', actor.auth)
    .send({ query, ...(topK !== undefined ? { top_k: topK } : {}) });
  expect(res.status).toBe(200);
  return res.body as RagAnswer;
}

interface ChunkRow {
  id: string;
  chunk_index: number;
  page: number | null;
  content: string;
  embedding_model: string | null;
  dims: number | null;
  packed: number | null;
  owner_id: number;
  visibility: string;
}

async function chunksOf(documentId: number): Promise<ChunkRow[]> {
  return (await kit.bed.database.query(
    'SELECT id, chunk_index, page, content, embedding_model, cardinality(embedding) AS dims, octet_length(embedding_f32) AS packed, owner_id, visibility FROM rag_chunks WHERE document_id = $1 ORDER BY chunk_index',
    [documentId],
  )) as ChunkRow[];
}

let pdfId: number;

describe('indexing through rag_index_queue', () => {
  it('indexes a multi-page PDF: queued, processing, completed, with chunks per page and embeddings', async () => {
    const pdf = buildPdf([
      ['Lisbon Office Handbook', ...filler('welcome', 8)],
      ['Security At The Lisbon Office', 'The door code of the Lisbon office is 4711.', ...filler('security', 6)],
      ['Parking', 'Visitors park in the garage on Rua Augusta, level minus two.', ...filler('parking', 6)],
    ]);
    pdfId = await uploadDoc(kit.alice, pdf, 'lisbon.pdf', 'application/pdf', { title: 'Lisbon office handbook' });

    kit.llm.hold();
    const res = await enable(kit.alice, pdfId);
    expect(res.status).toBe(202);
    const body = res.body as EnableResult;
    expect(body).toMatchObject({ document_id: pdfId, rag_status: 'queued', queued: true, ragEnabled: true, ragStatus: 'processing' });
    expect(body.rag_job_id).toMatch(/^[0-9a-f-]{36}$/);

    // Held in the embeddings call: the worker has claimed the job.
    const processing = await until('processing', async () => {
      const s = await ragStatus(kit, pdfId);
      return s.rag_processing_status === 'processing' ? s : undefined;
    });
    expect(processing).toMatchObject({ ragStatus: 'processing', rag_chunk_count: 0, rag_job_id: body.rag_job_id });
    kit.llm.release();

    const done = await settled(kit, pdfId);
    expect(done).toMatchObject({ rag_processing_status: 'completed', ragStatus: 'enabled', rag_job_id: body.rag_job_id, rag_error: null });
    const chunks = await chunksOf(pdfId);
    expect(chunks.length).toBeGreaterThanOrEqual(3);
    expect(done.rag_chunk_count).toBe(chunks.length);
    expect(chunks.map((c) => c.chunk_index)).toEqual(chunks.map((_, i) => i));
    expect(new Set(chunks.map((c) => c.page))).toEqual(new Set([1, 2, 3]));
    expect(chunks.find((c) => c.content.includes('4711'))?.page).toBe(2);
    expect(chunks.every((c) => c.embedding_model === 'fake:hash-64' && c.dims === 64 && c.packed === 256 && c.owner_id === kit.alice.id && c.visibility === 'user')).toBe(true);
    // The embeddings were asked for in batches with the service key.
    const calls = kit.llm.callsTo('/api/v1/embeddings');
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.every((c) => c.serviceKey === SERVICE_KEY)).toBe(true);

    // The documents feature's status read shows the same fields.
    const publicStatus = await request(kit.app).get(`/api/documents/${pdfId}/rag-status`).set('authorization', kit.alice.auth);
    expect(publicStatus.body).toMatchObject({ rag_processing_status: 'completed', rag_chunk_count: chunks.length, ragEnabled: true, ragStatus: 'enabled' });
  });

  it('indexes a DOCX (converted to PDF at upload) page by page', async () => {
    const docx = buildDocx([
      'Onboarding Checklist',
      'New hires receive a laptop from the Orion service desk on their first morning.',
      'They sign the equipment form and the code of conduct before noon.',
      'Their manager books an introduction lunch with the team in the first week.',
      null,
      'Badge Office',
      'Badges are printed in room 3B on Tuesdays.',
    ]);
    const id = await uploadDoc(kit.alice, docx, 'onboarding.docx', DOCX, { title: 'Onboarding' });
    await indexed(kit.alice, id);
    const chunks = await chunksOf(id);
    expect(chunks.find((c) => c.content.includes('room 3B'))?.page).toBe(2);
    const answer = await ask(kit.alice, 'Where are badges printed?', 3);
    expect(answer.sources.slice(0, 3).some((s) => s.document_id === id && s.chunk_text.includes('room 3B'))).toBe(true);
  });

  it('fails with the reason when the file has no readable text', async () => {
    const id = await uploadDoc(kit.alice, Buffer.from('%PDF-1.4\nthis is not really a pdf\n%%EOF\n', 'latin1'), 'broken.pdf', 'application/pdf');
    const res = await enable(kit.alice, id);
    expect(res.status).toBe(202);
    const done = await settled(kit, id);
    expect(done).toMatchObject({ rag_processing_status: 'failed', ragStatus: 'failed', rag_chunk_count: 0 });
    expect(done.rag_error).toMatch(/^Text extraction failed/);
    expect(await chunksOf(id)).toEqual([]);
    // A failed document is queued again by a plain enable.
    const again = await enable(kit.alice, id);
    expect(again.status).toBe(202);
    expect((await settled(kit, id)).rag_processing_status).toBe('failed');
  });

  it('leaves an indexed document alone without force_reprocess, and replaces its chunks at once with it', async () => {
    const id = await uploadDoc(kit.alice, `Refund Rules\n\n${'Refunds are paid within 14 days of the request. '.repeat(40)}`, 'refunds.txt', 'text/plain', { title: 'Refunds' });
    await indexed(kit.alice, id);
    const before = await chunksOf(id);
    const first = await ragStatus(kit, id);

    const noop = await enable(kit.alice, id);
    expect(noop.status).toBe(200);
    expect(noop.body).toMatchObject({ queued: false, rag_status: 'completed', rag_job_id: first.rag_job_id });
    expect((await chunksOf(id)).map((c) => c.id)).toEqual(before.map((c) => c.id));

    await request(kit.app)
      .put(`/api/documents/${id}`)
      .set('authorization', kit.alice.auth)
      .send({ data: { title: 'Refund policy 2025' } })
      .expect(200);
    const forced = await enable(kit.alice, id, { force_reprocess: true });
    expect(forced.status).toBe(202);
    expect((forced.body as EnableResult).rag_job_id).not.toBe(first.rag_job_id);
    const done = await settled(kit, id);
    expect(done.rag_processing_status).toBe('completed');
    const after = await chunksOf(id);
    expect(after).toHaveLength(before.length);
    expect(after.some((c) => before.some((b) => b.id === c.id))).toBe(false);
    const titles = (await kit.bed.database.query('SELECT DISTINCT document_title FROM rag_chunks WHERE document_id = $1', [id])) as { document_title: string }[];
    expect(titles).toEqual([{ document_title: 'Refund policy 2025' }]);
  });

  it('keeps a switch-off made during indexing once indexing ends, and a plain enable during indexing switches it back on (3.5)', async () => {
    const id = await uploadDoc(kit.alice, 'Fleet Notes\n\nThe blue van is parked at gate Zulu-9 overnight.', 'fleet.txt', 'text/plain', { title: 'Fleet' });
    const processing = async (): Promise<void> => {
      await until('processing', async () => ((await ragStatus(kit, id)).rag_processing_status === 'processing' ? true : undefined));
    };
    const off = () => request(kit.app).patch(`/api/documents/${id}/rag-status`).set('authorization', kit.alice.auth).send({ ragEnabled: false, ragStatus: 'disabled' }).expect(200);

    kit.llm.hold();
    expect((await enable(kit.alice, id)).status).toBe(202);
    await processing();
    await off();
    kit.llm.release();
    const done = await settled(kit, id);
    expect(done).toMatchObject({ rag_processing_status: 'completed', ragEnabled: false, ragStatus: 'disabled' });
    expect(done.rag_chunk_count).toBeGreaterThan(0);
    expect((await ask(kit.alice, 'Where is the blue van parked?', 20)).sources.some((s) => s.document_id === id)).toBe(false);

    kit.llm.hold();
    expect((await enable(kit.alice, id, { force_reprocess: true })).status).toBe(202);
    await processing();
    await off();
    const again = await enable(kit.alice, id);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ queued: false, rag_status: 'processing', ragEnabled: true, ragStatus: 'processing' });
    kit.llm.release();
    expect(await settled(kit, id)).toMatchObject({ rag_processing_status: 'completed', ragEnabled: true, ragStatus: 'enabled' });
    expect((await ask(kit.alice, 'Where is the blue van parked?', 20)).sources.some((s) => s.document_id === id && s.chunk_text.includes('Zulu-9'))).toBe(true);
  });

  it('answers 404 to anyone but the owner, and deletes the chunks with the document', async () => {
    const id = await uploadDoc(kit.bob, 'Bob private notes: the boat is named Wavecrest.', 'notes.txt', 'text/plain');
    await enable(kit.alice, id).expect(404);
    await request(kit.app).post('/api/internal/rag/enable').set('x-service-key', SERVICE_KEY).send({ document_id: id, user_id: kit.alice.id }).expect(404);
    await request(kit.app).post('/api/internal/rag/enable').send({ document_id: id, user_id: kit.bob.id }).expect(401);
    const viaService = await request(kit.app).post('/api/internal/rag/enable').set('x-service-key', SERVICE_KEY).send({ document_id: id, user_id: kit.bob.id });
    expect(viaService.status).toBe(202);
    expect((await settled(kit, id)).rag_processing_status).toBe('completed');
    expect((await chunksOf(id)).length).toBeGreaterThan(0);
    await request(kit.app).get(`/api/internal/documents/${id}/rag-status?user_id=${kit.alice.id}`).set('x-service-key', SERVICE_KEY).expect(404);

    await request(kit.app).delete(`/api/documents/${id}`).set('authorization', kit.bob.auth).expect(200);
    expect(await chunksOf(id)).toEqual([]);
  });
});

describe('questions', () => {
  let globalId: number;

  beforeAll(async () => {
    globalId = await uploadDoc(kit.admin, 'Company Holidays\n\nThe office is closed on the Lisbon city holiday, June 13.', 'holidays.txt', 'text/plain', { global: 'true', title: 'Company holidays' });
    await indexed(kit.admin, globalId);
  });

  it('ranks the chunk holding the answer in the top 3, and answers by quoting it with a citation (local engine)', async () => {
    kit.llm.chatMode = 'local';
    const answer = await ask(kit.alice, 'What is the door code of the Lisbon office?');
    expect(answer.query).toBe('What is the door code of the Lisbon office?');
    const top3 = answer.sources.slice(0, 3);
    const hit = top3.findIndex((s) => s.document_id === pdfId && s.chunk_text.includes('4711'));
    expect(hit).toBeGreaterThanOrEqual(0);
    expect(answer.answer_mode).toBe('extractive');
    expect(answer.answer).toContain(`The door code of the Lisbon office is 4711. [${hit + 1}]`);
    expect(answer.context_used).toBe(answer.sources.length);
    expect(answer.sources.length).toBeLessThanOrEqual(5);
    const source = answer.sources[hit]!;
    expect(source).toMatchObject({ document_name: 'Lisbon office handbook', page: 2, file_url: `http://docs.test:1337/api/documents/${pdfId}/download` });
    expect(source.score).toBeGreaterThan(0);
    expect(source.score).toBeLessThanOrEqual(1);
  });

  it('returns a model answer as written, with the grounded prompt citing numbered passages', async () => {
    kit.llm.chatMode = 'model';
    const answer = await ask(kit.alice, 'door code Lisbon');
    expect(answer).toMatchObject({ answer: 'The door code is 4711 [1].', answer_mode: 'generated', provider: 'openai', model: 'gpt-test' });
    const chat = kit.llm.callsTo('/api/v1/chat').at(-1)!;
    const messages = chat.body.messages as { role: string; content: string }[];
    expect(messages[0]?.role).toBe('system');
    expect(messages[1]?.content).toContain('Question: door code Lisbon');
    expect(messages[1]?.content).toContain(`[1] (${answer.sources[0]!.document_name}`);
    kit.llm.chatMode = 'down';
    const fallback = await ask(kit.alice, 'door code Lisbon');
    expect(fallback.answer_mode).toBe('extractive');
    expect(fallback.answer).toMatch(/4711\. \[\d\]/);
    kit.llm.chatMode = 'local';
  });

  it("never gives bob alice's private chunks, but does give him global ones", async () => {
    for (const query of ['Lisbon office door code holiday', 'Where are badges printed?', 'Lisbon']) {
      const answer = await ask(kit.bob, query, 20);
      expect(answer.sources.every((s) => s.document_id === globalId)).toBe(true);
      const internal = await request(kit.app).post('/api/internal/rag/query').set('x-service-key', SERVICE_KEY).send({ query, user_id: kit.bob.id, top_k: 20 });
      expect(internal.status).toBe(200);
      expect((internal.body as RagAnswer).sources.every((s) => s.document_id === globalId)).toBe(true);
    }
    const bobs = await ask(kit.bob, 'Lisbon city holiday');
    expect(bobs.sources[0]).toMatchObject({ document_id: globalId, file_url: expect.stringContaining('/api/documents/global/download/') });
    // Alice sees both hers and the global one.
    const alices = await ask(kit.alice, 'Lisbon holiday door code', 20);
    expect(alices.sources.map((s) => s.document_id)).toEqual(expect.arrayContaining([pdfId, globalId]));
  });

  it('gives signed URLs that download the file without a token, and that expire', async () => {
    const answer = await ask(kit.bob, 'Lisbon city holiday');
    const source = answer.sources[0]!;
    const expiresAt = Date.parse(source.signed_url_expires_at);
    expect(Math.abs(expiresAt - (Date.now() + 3600 * 1000))).toBeLessThan(60 * 1000);
    const url = new URL(source.signed_url);
    expect(url.origin).toBe('http://docs.test:1337');
    const file = await download(kit.app, `${url.pathname}${url.search}`);
    expect(file.status).toBe(200);
    expect(file.body.toString('utf8')).toContain('June 13');

    // The same sources, signed two hours ago: their links have expired.
    const earlier = createRagModule({ config: kit.config, database: kit.bed.database, logger: silentLogger, metrics: new Metrics('public-api'), now: () => Date.now() - 2 * 3600 * 1000 });
    const old = await earlier.service.ask(kit.bob.id, { query: 'Lisbon city holiday', topK: 1 });
    const stale = new URL(old.sources[0]!.signed_url);
    const refused = await request(kit.app).get(`${stale.pathname}${stale.search}`);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: { message: 'This signed URL has expired' } });
    await earlier.stop();

    // The lifetime is configurable (SIGNED_URL_TTL_SECONDS).
    const shorter = createRagModule({ config: { ...kit.config, SIGNED_URL_TTL_SECONDS: 600 }, database: kit.bed.database, logger: silentLogger, metrics: new Metrics('public-api') });
    const short = (await shorter.service.ask(kit.bob.id, { query: 'Lisbon city holiday', topK: 1 })).sources[0]!;
    expect(Math.abs(Date.parse(short.signed_url_expires_at) - (Date.now() + 600 * 1000))).toBeLessThan(60 * 1000);
    expect(Number(new URL(short.signed_url).searchParams.get('expires')) * 1000).toBe(Date.parse(short.signed_url_expires_at));
    await shorter.stop();
  });

  it('leaves out a document switched off for RAG, and a plain enable switches it back on without reindexing', async () => {
    const before = await chunksOf(pdfId);
    await request(kit.app).patch(`/api/documents/${pdfId}/rag-status`).set('authorization', kit.alice.auth).send({ ragEnabled: false, ragStatus: 'disabled' }).expect(200);
    const off = await ask(kit.alice, 'What is the door code of the Lisbon office?', 20);
    expect(off.sources.some((s) => s.document_id === pdfId)).toBe(false);
    const on = await enable(kit.alice, pdfId);
    expect(on.status).toBe(200);
    expect(on.body).toMatchObject({ queued: false, rag_status: 'completed', ragEnabled: true, ragStatus: 'enabled' });
    expect((await chunksOf(pdfId)).map((c) => c.id)).toEqual(before.map((c) => c.id));
    const back = await ask(kit.alice, 'What is the door code of the Lisbon office?', 3);
    expect(back.sources.some((s) => s.document_id === pdfId && s.chunk_text.includes('4711'))).toBe(true);
  });

  it('leaves out a document whose ragStatus alone was set to disabled, until it is enabled again', async () => {
    const question = 'What is the door code of the Lisbon office?';
    await request(kit.app).patch(`/api/documents/${pdfId}/rag-status`).set('authorization', kit.alice.auth).send({ ragStatus: 'disabled' }).expect(200);
    expect((await ask(kit.alice, question, 20)).sources.some((s) => s.document_id === pdfId)).toBe(false);
    const on = await enable(kit.alice, pdfId);
    expect(on.status).toBe(200);
    expect(on.body).toMatchObject({ queued: false, ragEnabled: true, ragStatus: 'enabled' });
    expect((await ask(kit.alice, question, 3)).sources.some((s) => s.document_id === pdfId)).toBe(true);
  });

  it('validates the question and top_k, and needs a token or the service key', async () => {
    await request(kit.app).post('/api/rag/query').send({ query: 'x' }).expect(401);
    await request(kit.app).post('/api/internal/rag/query').send({ query: 'x', user_id: kit.bob.id }).expect(401);
    // Part 5: a service JWT (HS256, the shared secret) instead of X-Service-Key; a user's token is not one.
    const jwt = signServiceToken(kit.config.INTERNAL_SERVICE_JWT_SECRET, 'workflow-processor');
    await request(kit.app).post('/api/internal/rag/query').set('authorization', `Bearer ${jwt}`).send({ query: 'x', user_id: kit.bob.id }).expect(200);
    await request(kit.app).post('/api/internal/rag/query').set('authorization', kit.bob.auth).send({ query: 'x', user_id: kit.bob.id }).expect(401);
    const tooMany = await request(kit.app).post('/api/rag/query').set('authorization', kit.alice.auth).send({ query: 'door', top_k: 21 });
    expect(tooMany.status).toBe(400);
    const blank = await request(kit.app).post('/api/rag/query').set('authorization', kit.alice.auth).send({ query: '   ' });
    expect(blank.status).toBe(400);
    expect((blank.body as { error: { details: { errors: string[] } } }).error.details.errors).toEqual(['query must not be blank']);
  });

  it('answers bad input with part 7 bodies naming one problem per field', async () => {
    const refused = async (path: string, body: unknown, errors: string[]): Promise<void> => {
      const req = request(kit.app).post(`/api/${path}`);
      const res = await (path.startsWith('internal') ? req.set('x-service-key', SERVICE_KEY) : req.set('authorization', kit.alice.auth)).send(body as object);
      expect({ path, body, status: res.status, response: res.body as unknown }).toEqual({
        path,
        body,
        status: 400,
        response: { error: { status: 400, name: 'BadRequestError', message: 'Invalid request body', details: { errors } } },
      });
    };
    await refused('rag/query', {}, ['query is required']);
    await refused('rag/query', { query: 5 }, ['query must be a string']);
    await refused('rag/query', { query: 'door', top_k: '3' }, ['top_k must be an integer number']);
    await refused('rag/query', { query: 'door', top_k: 0 }, ['top_k must not be less than 1']);
    await refused('rag/query', { query: 'door', top_k: 2.5 }, ['top_k must be an integer number']);
    await refused('rag/query', { query: 'x'.repeat(2001) }, ['query must be shorter than or equal to 2000 characters']);
    await refused('internal/rag/query', { query: 'door' }, ['user_id is required']);
    await refused('internal/rag/enable', {}, ['document_id is required', 'user_id is required']);
    await refused('internal/rag/enable', { document_id: '7', user_id: kit.alice.id, force_reprocess: 'yes' }, ['document_id must be an integer number', 'force_reprocess must be a boolean value']);
    // Spec 4.14's default top_k is 5.
    const defaulted = await ask(kit.alice, 'Lisbon holiday door code guideline item team member');
    expect(defaulted.sources).toHaveLength(5);
  });
});
