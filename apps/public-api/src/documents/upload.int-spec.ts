import request from 'supertest';
import { buildPdf } from './test-support/fixtures';
import { download, type DocumentsKit, type ErrorBody, filesUnder, openDocumentsKit, upload, type UploadBody } from './test-support/documents-kit';

const MB = 1024 * 1024;
let kit: DocumentsKit;

beforeAll(async () => {
  // A 1 MB upload limit and a 2 MB quota keep the limit and quota tests small.
  kit = await openDocumentsKit({ UPLOAD_MAX_FILE_SIZE_MB: '1', STORAGE_QUOTA_MB: '2' });
});

afterAll(async () => {
  await kit?.close();
});

async function usedBytes(userId: number): Promise<number> {
  const rows = (await kit.bed.database.query('SELECT used_bytes FROM user_storage_usage WHERE user_id = $1', [userId])) as { used_bytes: string }[];
  return Number(rows[0]?.used_bytes ?? 0);
}

async function deleteAll(actor: { auth: string }): Promise<void> {
  const list = await request(kit.app).get('/api/documents?pagination[pageSize]=100').set('authorization', actor.auth);
  for (const doc of (list.body as { data: { id: number }[] }).data) {
    await request(kit.app).delete(`/api/documents/${doc.id}`).set('authorization', actor.auth).expect(200);
  }
}

describe('POST /api/documents/upload', () => {
  afterEach(async () => {
    await kit.api.documents.textExtraction.idle();
    await deleteAll(kit.alice);
  });

  it('stores the `file` variant with its fields and answers both documented shapes', async () => {
    const pdf = buildPdf([['Quarterly report']]);
    const res = await upload(kit.app, kit.alice, {
      content: pdf,
      filename: 'report.pdf',
      contentType: 'application/pdf',
      fields: { title: 'Q1 report', description: 'First quarter', tags: '["finance","q1"]', metadata: '{"department":"sales"}' },
    });
    expect(res.status).toBe(201);
    const body = res.body as UploadBody;
    expect(body).toMatchObject({
      title: 'Q1 report',
      description: 'First quarter',
      mime_type: 'application/pdf',
      mimeType: 'application/pdf',
      file_size: pdf.length,
      fileSize: pdf.length,
      tags: ['finance', 'q1'],
      metadata: { department: 'sales' },
      visibility: 'user',
      owner: { id: kit.alice.id, username: 'alice' },
      ragEnabled: false,
      ragStatus: 'disabled',
      rag_processing_status: null,
      rag_chunk_count: 0,
      documentType: null,
      filename: 'report.pdf',
    });
    expect(body.file_url).toBe(`http://docs.test:1337/api/documents/${body.id}/download`);
    expect(body.fileUrl).toBe(body.file_url);
    expect(body.data).toHaveLength(1);
    expect(body.data[0]).toMatchObject({ id: body.id, title: 'Q1 report', file_url: body.file_url, fileSize: pdf.length });
    expect(body.warning).toBeUndefined();

    const file = await download(kit.app, `/api/documents/${body.id}/download`, kit.alice);
    expect(file.status).toBe(200);
    expect(file.headers['content-type']).toBe('application/pdf');
    expect(file.body.equals(pdf)).toBe(true);
  });

  it('stores the `files` + `data` variant, titles from data, and reads every file back byte for byte', async () => {
    const csv = 'name,amount\nalice,10\nbob,20\n';
    const json = '{"invoice": 42, "lines": [1, 2, 3]}';
    const req = request(kit.app)
      .post('/api/documents/upload')
      .set('authorization', kit.alice.auth)
      .field('data', JSON.stringify({ title: 'Ledger', tags: ['books'], metadata: { year: 2024 } }))
      .attach('files', Buffer.from(csv), { filename: 'ledger.csv', contentType: 'text/csv' })
      .attach('files', Buffer.from(json), { filename: 'invoice.json', contentType: 'application/json' });
    const res = await req;
    expect(res.status).toBe(201);
    const body = res.body as UploadBody;
    expect(body.data.map((d) => [d.title, d.mimeType, d.fileSize, d.tags, d.metadata])).toEqual([
      ['Ledger', 'text/csv', csv.length, ['books'], { year: 2024 }],
      ['Ledger', 'application/json', json.length, ['books'], { year: 2024 }],
    ]);
    expect(body.id).toBe(body.data[0]?.id);
    for (const [doc, content] of [
      [body.data[0], csv],
      [body.data[1], json],
    ] as const) {
      const file = await download(kit.app, `/api/documents/${doc?.id}/download`, kit.alice);
      expect(file.body.toString('utf8')).toBe(content);
    }
  });

  it('takes the filename as the title when none is given', async () => {
    const res = await upload(kit.app, kit.alice, { content: 'plain notes\n', filename: 'notes.txt', contentType: 'text/plain' });
    expect(res.status).toBe(201);
    expect((res.body as UploadBody).title).toBe('notes.txt');
  });

  it('refuses a text file sent as image/png named .png, and leaves nothing stored', async () => {
    const res = await upload(kit.app, kit.alice, { content: 'I am not a picture', filename: 'pixel.png', contentType: 'image/png' });
    expect(res.status).toBe(400);
    const error = (res.body as ErrorBody).error;
    expect(error.name).toBe('BadRequestError');
    expect(error.details.errors).toEqual(['pixel.png: the declared Content-Type image/png does not match the content, which is text/plain']);
    expect(await filesUnder(kit.storageDir)).toEqual([]);
    expect(await filesUnder(kit.tempDir)).toEqual([]);
  });

  it('refuses content outside the accepted types, whatever the client claims', async () => {
    const zip = Buffer.concat([Buffer.from('PK\u0003\u0004'), Buffer.alloc(200, 1)]);
    const res = await upload(kit.app, kit.alice, { content: zip, filename: 'archive.pdf', contentType: 'application/pdf' });
    expect(res.status).toBe(400);
    expect((res.body as ErrorBody).error.details.errors?.[0]).toMatch(/^archive\.pdf: the content is not one of the accepted types/);
  });

  it('stores a traversal filename under a generated key and serves it sanitised', async () => {
    const res = await upload(kit.app, kit.alice, { content: 'root:x:0:0\n', filename: '../../etc/passwd', contentType: 'text/plain' });
    expect(res.status).toBe(201);
    const body = res.body as UploadBody;
    expect(body.filename).toBe('passwd');
    const stored = await filesUnder(kit.storageDir);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatch(/^\d{4}\/\d{2}\/[0-9a-f-]{36}\.txt$/);
    const file = await download(kit.app, `/api/documents/${body.id}/download`, kit.alice);
    expect(file.headers['content-disposition']).toBe(`attachment; filename="passwd"; filename*=UTF-8''passwd`);
    expect(file.headers['x-content-type-options']).toBe('nosniff');
    expect(file.body.toString()).toBe('root:x:0:0\n');
  });

  it('accepts a file of exactly UPLOAD_MAX_FILE_SIZE_MB and refuses one byte more with 413, leaving no file behind', async () => {
    const exact = await upload(kit.app, kit.alice, { content: Buffer.alloc(MB, 'a'), filename: 'exact.txt', contentType: 'text/plain' });
    expect(exact.status).toBe(201);
    expect((exact.body as UploadBody).fileSize).toBe(MB);
    await request(kit.app)
      .delete(`/api/documents/${(exact.body as UploadBody).id}`)
      .set('authorization', kit.alice.auth)
      .expect(200);
    expect(await filesUnder(kit.storageDir)).toEqual([]);

    const over = await upload(kit.app, kit.alice, { content: Buffer.alloc(MB + 1, 'a'), filename: 'over.txt', contentType: 'text/plain' });
    expect(over.status).toBe(413);
    expect((over.body as ErrorBody).error).toMatchObject({ status: 413, name: 'PayloadTooLargeError', message: 'File is larger than the upload limit of 1 MB' });
    expect((over.body as ErrorBody).error.details).toMatchObject({ maxBytes: MB });
    expect(await filesUnder(kit.storageDir)).toEqual([]);
    expect(await filesUnder(kit.tempDir)).toEqual([]);
    expect(await usedBytes(kit.alice.id)).toBe(0);
  });

  it('never lets 20 parallel uploads pass the quota, warns from 80 % and refuses the rest with the reason', async () => {
    const size = 300 * 1024; // 2 MB quota: 6 fit (1,843,200 bytes), the 7th would not
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => upload(kit.app, kit.alice, { content: Buffer.alloc(size, 'x'), filename: `part-${i}.txt`, contentType: 'text/plain' })));
    const accepted = results.filter((r) => r.status === 201);
    const refused = results.filter((r) => r.status !== 201);
    expect(accepted).toHaveLength(6);
    expect(refused.map((r) => r.status)).toEqual(Array(14).fill(400));
    const refusal = (refused[0]?.body as ErrorBody).error;
    expect(refusal.message).toBe('Storage quota exceeded');
    expect(refusal.details).toMatchObject({ code: 'quota_exceeded', quota_bytes: 2 * MB });
    expect(refusal.details.errors?.[0]).toMatch(/^storing 307200 more bytes would exceed your storage quota of 2097152 bytes/);
    expect(await usedBytes(kit.alice.id)).toBe(6 * size);
    expect(await filesUnder(kit.storageDir)).toHaveLength(6);
    // Each refusal is audited as quota.exceeded (spec 2.19) for the uploader.
    await kit.api.audit.flush();
    const audited = (await kit.bed.database.query("SELECT actor_user_id, details FROM audit_log WHERE action = 'quota.exceeded'")) as { actor_user_id: number; details: Record<string, number> }[];
    expect(audited).toHaveLength(14);
    expect(audited.every((a) => a.actor_user_id === kit.alice.id && a.details.requested_bytes === size && a.details.quota_bytes === 2 * MB)).toBe(true);

    // From 5 files (1,536,000 bytes, 73 %) to 6 (88 %): only uploads that ended past 80 % carry the warning.
    const warnings = accepted.map((r) => (r.body as UploadBody).warning).filter((w) => w !== undefined);
    expect(warnings.length).toBeGreaterThanOrEqual(1);
    expect(warnings.every((w) => w.code === 'quota_warning' && w.quota_bytes === 2 * MB && w.ratio >= 0.8)).toBe(true);
    expect(warnings.map((w) => w.used_bytes)).toContain(6 * size);

    await deleteAll(kit.alice);
    expect(await usedBytes(kit.alice.id)).toBe(0);
    expect(await filesUnder(kit.storageDir)).toEqual([]);
  });

  it('lets only a super administrator upload a global document, and refuses a taken global key', async () => {
    const denied = await upload(kit.app, kit.alice, { content: 'public', filename: 'p.txt', contentType: 'text/plain', fields: { global: 'true', globalKey: 'terms' } });
    expect(denied.status).toBe(403);

    const first = await upload(kit.app, kit.admin, { content: 'Terms v1', filename: 'terms.txt', contentType: 'text/plain', fields: { global: 'true', globalKey: 'terms' } });
    expect(first.status).toBe(201);
    expect(first.body as UploadBody).toMatchObject({ visibility: 'global', globalKey: 'terms', file_url: 'http://docs.test:1337/api/documents/global/download/terms' });

    const again = await upload(kit.app, kit.admin, { content: 'Terms v2', filename: 'terms.txt', contentType: 'text/plain', fields: { global: 'true', globalKey: 'terms' } });
    expect(again.status).toBe(409);
    expect(await usedBytes(kit.admin.id)).toBe('Terms v1'.length);
    expect(await filesUnder(kit.storageDir)).toHaveLength(1);
    await deleteAll(kit.admin);
  });

  it('lists every problem with the fields, and needs a file', async () => {
    const bad = await upload(kit.app, kit.alice, { content: 'x', filename: 'x.txt', contentType: 'text/plain', fields: { tags: '["ok", 3]', metadata: '[1]', global: 'maybe' } });
    expect(bad.status).toBe(400);
    expect((bad.body as ErrorBody).error.details.errors).toEqual([
      'tags: must be an array of strings (a JSON array in a form field)',
      'metadata: must be a JSON object',
      'global: must be true or false',
    ]);
    const none = await request(kit.app).post('/api/documents/upload').set('authorization', kit.alice.auth).field('title', 'nothing');
    expect(none.status).toBe(400);
    expect((none.body as ErrorBody).error.message).toBe('A file is required');
    const wrongField = await request(kit.app).post('/api/documents/upload').set('authorization', kit.alice.auth).attach('document', Buffer.from('x'), 'x.txt');
    expect(wrongField.status).toBe(400);
  });

  it('needs a token', async () => {
    const res = await request(kit.app).post('/api/documents/upload').attach('file', Buffer.from('x'), 'x.txt');
    expect(res.status).toBe(401);
  });
});
