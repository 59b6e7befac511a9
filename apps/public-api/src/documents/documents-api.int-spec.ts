import request from 'supertest';
import { buildPdf } from './test-support/fixtures';
import { type Actor, download, type DocumentsKit, type ErrorBody, filesUnder, openDocumentsKit, SERVICE_KEY, upload, type UploadBody } from './test-support/documents-kit';
import type { DocumentView } from './document-view';
import { signedDownloadUrl } from './signed-urls';

let kit: DocumentsKit;
let report: UploadBody;
let memo: UploadBody;
let global: UploadBody;
const PDF = buildPdf([['Annual report 2024']]);

interface ListBody {
  data: DocumentView[];
  meta: { pagination: { page: number; pageSize: number; pageCount: number; total: number } };
}

beforeAll(async () => {
  kit = await openDocumentsKit();
  const up = async (actor: Actor, content: Buffer | string, filename: string, fields: Record<string, string> = {}): Promise<UploadBody> => {
    const res = await upload(kit.app, actor, { content, filename, fields });
    if (res.status !== 201) throw new Error(`upload of ${filename} answered ${res.status}: ${res.text}`);
    return res.body as UploadBody;
  };
  report = await up(kit.alice, PDF, 'annual-report.pdf', { title: 'Annual report', tags: '["finance"]' });
  memo = await up(kit.alice, 'Remember the milk\n', 'memo.txt', { title: 'Memo to self' });
  await up(kit.bob, 'Bob private report\n', 'bob.txt', { title: 'Bob report' });
  global = await up(kit.admin, 'Terms of service\n', 'terms.txt', { title: 'Terms', global: 'true', globalKey: 'terms-of-service' });
  await kit.api.documents.textExtraction.idle();
});

afterAll(async () => {
  await kit?.close();
});

const get = (url: string, actor: Actor) => request(kit.app).get(url).set('authorization', actor.auth);

describe('GET /api/documents', () => {
  it("lists only the caller's documents, newest first, with pagination", async () => {
    const res = await get('/api/documents', kit.alice);
    expect(res.status).toBe(200);
    const body = res.body as ListBody;
    expect(body.data.map((d) => d.title)).toEqual(['Memo to self', 'Annual report']);
    expect(body.meta.pagination).toEqual({ page: 1, pageSize: 25, pageCount: 1, total: 2 });
    expect(body.data[1]).toMatchObject({ owner: { id: kit.alice.id, username: 'alice' }, fileUrl: report.fileUrl, file_size: PDF.length, mimeType: 'application/pdf' });
  });

  it('filters by title with $contains, sorts, pages and populates', async () => {
    const contains = (await get('/api/documents?filters[title][$contains]=report', kit.alice)).body as ListBody;
    expect(contains.data.map((d) => d.id)).toEqual([report.id]);
    const sorted = (await get('/api/documents?sort=title:asc&pagination[page]=2&pagination[pageSize]=1', kit.alice)).body as ListBody;
    expect(sorted.data.map((d) => d.title)).toEqual(['Memo to self']);
    expect(sorted.meta.pagination).toEqual({ page: 2, pageSize: 1, pageCount: 2, total: 2 });
    const populated = (await get('/api/documents?populate=*&filters[mimeType][$eq]=text/plain', kit.alice)).body as ListBody;
    expect(populated.data).toHaveLength(1);
    expect(populated.data[0]).toMatchObject({ id: memo.id, collections: [] });
  });

  it('counts the total whether or not the page is full, and skips it on request', async () => {
    const beyond = (await get('/api/documents?pagination[page]=5&pagination[pageSize]=1', kit.alice)).body as ListBody;
    expect(beyond.data).toEqual([]);
    expect(beyond.meta.pagination).toEqual({ page: 5, pageSize: 1, pageCount: 2, total: 2 });
    const last = (await get('/api/documents?pagination[page]=2&pagination[pageSize]=1', kit.alice)).body as ListBody;
    expect(last.meta.pagination).toEqual({ page: 2, pageSize: 1, pageCount: 2, total: 2 });
    const uncounted = (await get('/api/documents?pagination[withCount]=false', kit.alice)).body as ListBody;
    expect(uncounted.data).toHaveLength(2);
    expect(uncounted.meta.pagination).toEqual({ page: 1, pageSize: 25 });
  });

  it('refuses an unknown filter field with 400', async () => {
    const res = await get('/api/documents?filters[storage_key][$eq]=x', kit.alice);
    expect(res.status).toBe(400);
    expect((res.body as ErrorBody).error.details.errors?.[0]).toContain('storage_key');
  });
});

describe('one document', () => {
  it('is read with GET, changed with PUT and both PUT /metadata forms', async () => {
    const got = await get(`/api/documents/${memo.id}?populate=owner`, kit.alice);
    expect(got.status).toBe(200);
    expect((got.body as { data: DocumentView }).data).toMatchObject({ id: memo.id, title: 'Memo to self', textStatus: 'completed', owner: { id: kit.alice.id, username: 'alice' } });

    const put = await request(kit.app)
      .put(`/api/documents/${memo.id}`)
      .set('authorization', kit.alice.auth)
      .send({ data: { title: 'Shopping memo', metadata: { list: ['milk'] } } });
    expect(put.status).toBe(200);
    expect((put.body as { data: DocumentView }).data).toMatchObject({ title: 'Shopping memo', metadata: { list: ['milk'] }, description: null });

    const fieldsForm = await request(kit.app)
      .put(`/api/documents/${memo.id}/metadata`)
      .set('authorization', kit.alice.auth)
      .send({ title: 'Groceries', description: 'weekly', tags: ['home', 'food'] });
    expect((fieldsForm.body as { data: DocumentView }).data).toMatchObject({ title: 'Groceries', description: 'weekly', tags: ['home', 'food'], metadata: { list: ['milk'] } });

    const metadataForm = await request(kit.app)
      .put(`/api/documents/${memo.id}/metadata`)
      .set('authorization', kit.alice.auth)
      .send({ metadata: { store: 'corner' } });
    expect((metadataForm.body as { data: DocumentView }).data).toMatchObject({ title: 'Groceries', metadata: { store: 'corner' } });

    const empty = await request(kit.app)
      .put(`/api/documents/${memo.id}`)
      .set('authorization', kit.alice.auth)
      .send({ data: { title: '  ' } });
    expect(empty.status).toBe(400);
    expect((empty.body as ErrorBody).error.details.errors).toEqual(['title: must not be empty']);
  });

  it('takes a RAG status directly and reports it', async () => {
    const patched = await request(kit.app).patch(`/api/documents/${report.id}/rag-status`).set('authorization', kit.alice.auth).send({ ragEnabled: true, ragStatus: 'enabled' });
    expect(patched.status).toBe(200);
    expect((patched.body as { data: DocumentView }).data).toMatchObject({ ragEnabled: true, ragStatus: 'enabled' });
    const status = await get(`/api/documents/${report.id}/rag-status`, kit.alice);
    expect(status.body).toEqual({ rag_processing_status: null, rag_chunk_count: 0, ragEnabled: true, ragStatus: 'enabled' });
    const bad = await request(kit.app).patch(`/api/documents/${report.id}/rag-status`).set('authorization', kit.alice.auth).send({ ragEnabled: 'yes', ragStatus: 'done' });
    expect(bad.status).toBe(400);
    expect((bad.body as ErrorBody).error.details.errors).toEqual(['ragEnabled: must be a boolean', 'ragStatus: must be one of enabled, disabled, processing, failed']);
  });

  it('downloads with the stored type, an attachment disposition and nosniff', async () => {
    const res = await download(kit.app, `/api/documents/${report.id}/download`, kit.alice);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['content-length']).toBe(String(PDF.length));
    expect(res.headers['content-disposition']).toBe(`attachment; filename="annual-report.pdf"; filename*=UTF-8''annual-report.pdf`);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.body.equals(PDF)).toBe(true);
  });

  it('is deleted with its file and its bytes, and is 404 afterwards', async () => {
    const extra = await upload(kit.app, kit.alice, { content: 'short-lived\n', filename: 'tmp.txt' });
    const id = (extra.body as UploadBody).id;
    const before = await filesUnder(kit.storageDir);
    const del = await request(kit.app).delete(`/api/documents/${id}`).set('authorization', kit.alice.auth);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ data: { id } });
    expect(await filesUnder(kit.storageDir)).toHaveLength(before.length - 1);
    expect((await get(`/api/documents/${id}`, kit.alice)).status).toBe(404);
    expect((await request(kit.app).delete(`/api/documents/${id}`).set('authorization', kit.alice.auth)).status).toBe(404);
    expect((await get('/api/documents/not-a-number', kit.alice)).status).toBe(404);
  });
});

describe('bad input', () => {
  it('answers the spec error body and changes nothing', async () => {
    const before = ((await get(`/api/documents/${report.id}`, kit.alice)).body as { data: DocumentView }).data;
    const put = (body: string | object, url = `/api/documents/${report.id}`) =>
      request(kit.app)
        .put(url)
        .set('authorization', kit.alice.auth)
        .set('content-type', 'application/json')
        .send(typeof body === 'string' ? body : JSON.stringify(body));
    const answers = await Promise.all([
      put('{"data": {"title": "half'),
      put({ data: { title: 'Renamed', tags: 'not-a-list' } }),
      put({ data: { title: 'Renamed', metadata: [1, 2] } }),
      put({ data: { title: 7 } }),
      put({ data: 'Renamed' }),
      put({ title: 'Renamed', description: 12 }, `/api/documents/${report.id}/metadata`),
      request(kit.app).patch(`/api/documents/${report.id}/rag-status`).set('authorization', kit.alice.auth).send({ ragEnabled: true, ragStatus: 'indexed' }),
    ]);
    for (const res of answers) {
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: { status: 400, name: 'BadRequestError', message: expect.any(String) as string, details: expect.any(Object) as object } });
    }
    // Unknown fields are ignored (as Strapi's input sanitising does), so a body with nothing known is refused.
    expect((await put({ data: { colour: 'red' } })).status).toBe(400);

    const notFound = await Promise.all([
      get('/api/documents/abc', kit.alice),
      get('/api/documents/1.5', kit.alice),
      get('/api/documents/99999999999', kit.alice),
      put({ data: { title: 'x' } }, '/api/documents/abc'),
      request(kit.app).delete('/api/documents/-1').set('authorization', kit.alice.auth),
    ]);
    expect(notFound.map((r) => [r.status, (r.body as ErrorBody).error.name])).toEqual(Array(5).fill([404, 'NotFoundError']));

    const unauthenticated = await request(kit.app)
      .put(`/api/documents/${report.id}`)
      .send({ data: { title: 'x' } });
    expect(unauthenticated.body).toMatchObject({ error: { status: 401, name: 'UnauthorizedError' } });

    const after = ((await get(`/api/documents/${report.id}`, kit.alice)).body as { data: DocumentView }).data;
    expect(after).toEqual(before);
  });
});

describe("another user's document", () => {
  it('is 404 for bob on every document route', async () => {
    const id = report.id;
    const answers = await Promise.all([
      get(`/api/documents/${id}`, kit.bob),
      request(kit.app)
        .put(`/api/documents/${id}`)
        .set('authorization', kit.bob.auth)
        .send({ data: { title: 'mine now' } }),
      request(kit.app).put(`/api/documents/${id}/metadata`).set('authorization', kit.bob.auth).send({ metadata: {} }),
      request(kit.app).patch(`/api/documents/${id}/rag-status`).set('authorization', kit.bob.auth).send({ ragEnabled: false }),
      get(`/api/documents/${id}/rag-status`, kit.bob),
      get(`/api/documents/${id}/download`, kit.bob),
      get(`/api/documents/${id}/signed-url`, kit.bob),
      request(kit.app).delete(`/api/documents/${id}`).set('authorization', kit.bob.auth),
    ]);
    expect(answers.map((r) => r.status)).toEqual(Array(8).fill(404));
    expect(answers.map((r) => (r.body as ErrorBody).error.name)).toEqual(Array(8).fill('NotFoundError'));
    const list = (await get('/api/documents', kit.bob)).body as ListBody;
    expect(list.data.map((d) => d.title)).toEqual(['Bob report']);
    // Untouched by bob's attempts.
    expect(((await get(`/api/documents/${id}`, kit.alice)).body as { data: DocumentView }).data.title).toBe('Annual report');
  });
});

describe('global documents', () => {
  it('are listed with or without a token, and downloaded by key without one', async () => {
    const anonymous = await request(kit.app).get('/api/documents/global');
    expect(anonymous.status).toBe(200);
    expect((anonymous.body as ListBody).data.map((d) => [d.id, d.visibility, d.fileUrl])).toEqual([[global.id, 'global', 'http://docs.test:1337/api/documents/global/download/terms-of-service']]);
    expect((await get('/api/documents/global', kit.bob)).status).toBe(200);
    expect((await request(kit.app).get('/api/documents/global').set('authorization', 'Bearer not-a-token')).status).toBe(401);

    const file = await download(kit.app, '/api/documents/global/download/terms-of-service');
    expect(file.status).toBe(200);
    expect(file.body.toString()).toBe('Terms of service\n');
    expect(file.headers['content-disposition']).toContain('filename="terms.txt"');
    expect((await request(kit.app).get('/api/documents/global/download/no-such-key')).status).toBe(404);
  });

  it("are read and downloaded by id by any signed-in user, without the owner's collections, and changed only by the owner", async () => {
    await request(kit.app)
      .post('/api/collections/create-collection')
      .set('authorization', kit.admin.auth)
      .send({ name: 'Legal', documents: [global.id] })
      .expect(201);
    const read = await get(`/api/documents/${global.id}?populate=*`, kit.bob);
    expect(read.status).toBe(200);
    expect((read.body as { data: DocumentView }).data).toMatchObject({ id: global.id, visibility: 'global', title: 'Terms', owner: { id: kit.admin.id }, collections: [] });
    const own = await get(`/api/documents/${global.id}?populate=collections`, kit.admin);
    expect((own.body as { data: DocumentView }).data.collections?.map((c) => c.name)).toEqual(['Legal']);
    const file = await download(kit.app, `/api/documents/${global.id}/download`, kit.bob);
    expect(file.status).toBe(200);
    expect(file.body.toString()).toBe('Terms of service\n');
    expect((await request(kit.app).get(`/api/documents/${global.id}`)).status).toBe(401);

    const writes = await Promise.all([
      request(kit.app)
        .put(`/api/documents/${global.id}`)
        .set('authorization', kit.bob.auth)
        .send({ data: { title: 'mine now' } }),
      request(kit.app)
        .put(`/api/documents/${global.id}/metadata`)
        .set('authorization', kit.bob.auth)
        .send({ metadata: { x: 1 } }),
      request(kit.app).patch(`/api/documents/${global.id}/rag-status`).set('authorization', kit.bob.auth).send({ ragEnabled: true }),
      request(kit.app).delete(`/api/documents/${global.id}`).set('authorization', kit.bob.auth),
    ]);
    expect(writes.map((r) => r.status)).toEqual([404, 404, 404, 404]);
    expect(((await get(`/api/documents/${global.id}`, kit.admin)).body as { data: DocumentView }).data).toMatchObject({ title: 'Terms', metadata: {}, ragEnabled: false });
  });
});

describe('GET /api/internal/documents', () => {
  it("lists a user's documents for a service key, optionally only RAG-enabled ones", async () => {
    const all = await request(kit.app).get(`/api/internal/documents?user_id=${kit.alice.id}`).set('x-service-key', SERVICE_KEY);
    expect(all.status).toBe(200);
    expect((all.body as { data: DocumentView[] }).data.map((d) => d.id).sort()).toEqual([report.id, memo.id].sort());
    const enabled = await request(kit.app).get(`/api/internal/documents?user_id=${kit.alice.id}&enabled_only=true`).set('x-service-key', SERVICE_KEY);
    expect((enabled.body as { data: DocumentView[] }).data.map((d) => d.id)).toEqual([report.id]);
    // Switched off through PATCH rag-status (ragStatus disabled, ragEnabled left as it was): not among the enabled ones, as RAG does not answer from it.
    await request(kit.app).patch(`/api/documents/${report.id}/rag-status`).set('authorization', kit.alice.auth).send({ ragStatus: 'disabled' }).expect(200);
    const afterOff = await request(kit.app).get(`/api/internal/documents?user_id=${kit.alice.id}&enabled_only=true`).set('x-service-key', SERVICE_KEY);
    expect((afterOff.body as { data: DocumentView[] }).data).toEqual([]);
    await request(kit.app).patch(`/api/documents/${report.id}/rag-status`).set('authorization', kit.alice.auth).send({ ragEnabled: true, ragStatus: 'enabled' }).expect(200);
  });

  it('refuses a wrong or missing service key and a missing user_id', async () => {
    expect((await request(kit.app).get(`/api/internal/documents?user_id=${kit.alice.id}`).set('x-service-key', 'wrong')).status).toBe(401);
    expect((await request(kit.app).get(`/api/internal/documents?user_id=${kit.alice.id}`)).status).toBe(401);
    expect((await request(kit.app).get(`/api/internal/documents?user_id=${kit.alice.id}`).set('authorization', kit.alice.auth)).status).toBe(401);
    expect((await request(kit.app).get('/api/internal/documents').set('x-service-key', SERVICE_KEY)).status).toBe(400);
  });
});

describe('signed download URLs', () => {
  const path = (url: string) => url.replace('http://docs.test:1337', '');

  it('download without a token while valid', async () => {
    const internal = await request(kit.app).get(`/api/internal/documents/${report.id}/signed-url`).set('x-service-key', SERVICE_KEY);
    expect(internal.status).toBe(200);
    const { url, expires_at } = internal.body as { url: string; expires_at: string };
    expect(url).toMatch(new RegExp(`^http://docs\\.test:1337/api/documents/${report.id}/signed-download\\?expires=\\d+&signature=[A-Za-z0-9_-]+$`));
    const ttl = (Date.parse(expires_at) - Date.now()) / 1000;
    expect(ttl).toBeGreaterThan(3500);
    expect(ttl).toBeLessThanOrEqual(3601);
    const file = await download(kit.app, path(url));
    expect(file.status).toBe(200);
    expect(file.body.equals(PDF)).toBe(true);

    const mine = await get(`/api/documents/${memo.id}/signed-url`, kit.alice);
    expect((await download(kit.app, path((mine.body as { url: string }).url))).status).toBe(200);
  });

  it('are refused with 403 once expired', async () => {
    const { url } = signedDownloadUrl(kit.config, report.id, { ttlSeconds: 60, now: Date.now() - 120_000 });
    const res = await request(kit.app).get(path(url));
    expect(res.status).toBe(403);
    expect((res.body as ErrorBody).error.message).toBe('This signed URL has expired');
  });

  it('are refused with 403 when tampered with: another document, a later expiry, another signature', async () => {
    const { url } = signedDownloadUrl(kit.config, report.id);
    const parsed = new URL(url);
    const otherDocument = path(url).replace(`/documents/${report.id}/`, `/documents/${memo.id}/`);
    parsed.searchParams.set('expires', String(Number(parsed.searchParams.get('expires')) + 3600));
    const later = path(parsed.toString());
    const signature = new URL(url).searchParams.get('signature') ?? '';
    const flipped = path(url).replace(signature, `${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`);
    for (const tampered of [otherDocument, later, flipped, `/api/documents/${report.id}/signed-download`]) {
      const res = await request(kit.app).get(tampered);
      expect(res.status).toBe(403);
      expect((res.body as ErrorBody).error.message).toBe('Invalid signature');
    }
  });

  it('stop working when the document is deleted', async () => {
    const extra = await upload(kit.app, kit.alice, { content: 'gone soon\n', filename: 'gone.txt' });
    const id = (extra.body as UploadBody).id;
    const { url } = signedDownloadUrl(kit.config, id);
    await request(kit.app).delete(`/api/documents/${id}`).set('authorization', kit.alice.auth).expect(200);
    expect((await request(kit.app).get(path(url))).status).toBe(404);
  });
});
