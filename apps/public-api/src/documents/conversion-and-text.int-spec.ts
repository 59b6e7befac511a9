import request from 'supertest';
import { getDocumentText } from './document-text';
import { buildDocx, buildPdf, buildZip, renderPng } from './test-support/fixtures';
import { download, type DocumentsKit, type ErrorBody, filesUnder, openDocumentsKit, upload, type UploadBody } from './test-support/documents-kit';

// One LibreOffice start takes 5 to 6 s of CPU on the 2-core CI machine, more when both cores are busy.
jest.setTimeout(60000);

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
let kit: DocumentsKit;

beforeAll(async () => {
  kit = await openDocumentsKit();
});

afterAll(async () => {
  await kit?.close();
});

function countPdfPages(pdf: Buffer): number {
  const text = pdf.toString('latin1');
  return Math.max(...[...text.matchAll(/\/Type\s*\/Pages\b[^>]*?\/Count\s+(\d+)|\/Count\s+(\d+)[^>]*?\/Type\s*\/Pages\b/g)].map((m) => Number(m[1] ?? m[2])));
}

describe('DOCX uploads', () => {
  it('are converted to a real PDF that the document serves, keeping the original', async () => {
    const docx = buildDocx(['Employment contract', 'Page one text', null, 'Page two text']);
    const res = await upload(kit.app, kit.alice, { content: docx, filename: 'contract.docx', contentType: DOCX, fields: { title: 'Contract' } });
    expect(res.status).toBe(201);
    const body = res.body as UploadBody;
    expect(body).toMatchObject({ title: 'Contract', mimeType: 'application/pdf', mime_type: 'application/pdf', filename: 'contract.pdf' });
    expect(body.documentType).toEqual({ original_mime_type: DOCX, converted_to: 'application/pdf', pages: 2 });

    const pdf = await download(kit.app, `/api/documents/${body.id}/download`, kit.alice);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(pdf.headers['content-disposition']).toBe(`attachment; filename="contract.pdf"; filename*=UTF-8''contract.pdf`);
    expect(pdf.body.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(pdf.body.length).toBe(body.fileSize);
    expect(countPdfPages(pdf.body)).toBe(2);

    const original = await download(kit.app, `/api/documents/${body.id}/download?variant=original`, kit.alice);
    expect(original.headers['content-type']).toBe(DOCX);
    expect(original.body.equals(docx)).toBe(true);

    // Both files count against the quota and both are stored.
    const usage = (await kit.bed.database.query('SELECT used_bytes FROM user_storage_usage WHERE user_id = $1', [kit.alice.id])) as { used_bytes: string }[];
    expect(Number(usage[0]?.used_bytes)).toBe(docx.length + pdf.body.length);
    expect((await filesUnder(kit.storageDir)).map((f) => f.replace(/^.*\./, '')).sort()).toEqual(['docx', 'pdf']);

    await kit.api.documents.textExtraction.idle();
    const text = await getDocumentText(kit.bed.database, body.id, kit.alice.id);
    expect(text?.status).toBe('completed');
    expect(text?.pages?.map((p) => p.text)).toEqual([expect.stringContaining('Page one text'), expect.stringContaining('Page two text')]);

    await request(kit.app).delete(`/api/documents/${body.id}`).set('authorization', kit.alice.auth).expect(200);
    expect(await filesUnder(kit.storageDir)).toEqual([]);
  });

  it('refuses a zip bomb before LibreOffice sees it, with 400 and nothing stored', async () => {
    const bomb = buildDocx(['tiny'], { extraEntries: [{ name: 'word/media/huge.bin', data: Buffer.alloc(2 * 1024 * 1024), declaredSize: 300 * 1024 * 1024 }] });
    const res = await upload(kit.app, kit.alice, { content: bomb, filename: 'bomb.docx', contentType: DOCX });
    expect(res.status).toBe(400);
    const error = (res.body as ErrorBody).error;
    expect(error.message).toBe('The archive was refused');
    expect(error.details.reason).toBe('compression_ratio_too_high');
    expect(await filesUnder(kit.storageDir)).toEqual([]);
    expect(await filesUnder(kit.tempDir)).toEqual([]);
  });

  it('refuses a DOCX or XLSX whose declared sizes lie, counting what really inflates, with 400 and nothing stored', async () => {
    const lies = { name: 'media/zeros.bin', data: Buffer.alloc(48 * 1024 * 1024), declaredSize: 1024 };
    const docx = buildDocx(['tiny'], { extraEntries: [{ ...lies, name: 'word/media/zeros.bin' }] });
    const xlsx = buildZip([
      { name: '[Content_Types].xml', data: '<Types><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/></Types>' },
      { name: 'xl/workbook.xml', data: '<workbook/>' },
      { name: 'xl/media/zeros.bin', data: lies.data, declaredSize: lies.declaredSize },
    ]);
    for (const [content, filename, contentType] of [
      [docx, 'liar.docx', DOCX],
      [xlsx, 'liar.xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
    ] as const) {
      const res = await upload(kit.app, kit.alice, { content, filename, contentType });
      expect(res.status).toBe(400);
      const error = (res.body as ErrorBody).error;
      expect(error.message).toBe('The archive was refused');
      expect(['compression_ratio_too_high', 'declared_size_mismatch']).toContain(error.details.reason);
    }
    expect(await filesUnder(kit.storageDir)).toEqual([]);
    expect(await filesUnder(kit.tempDir)).toEqual([]);
  });
});

describe('text extraction', () => {
  it('reads a PDF per page in the background and offers it through getDocumentText', async () => {
    const res = await upload(kit.app, kit.alice, { content: buildPdf([['Invoice number 4711'], ['Total due 99 EUR']]), filename: 'invoice.pdf', contentType: 'application/pdf' });
    expect(res.status).toBe(201);
    const id = (res.body as UploadBody).id;
    await kit.api.documents.textExtraction.idle();
    const text = await getDocumentText(kit.bed.database, id, kit.alice.id);
    expect(text).toMatchObject({ documentId: id, status: 'completed', mimeType: 'application/pdf', error: null });
    expect(text?.pages).toEqual([
      { page: 1, text: 'Invoice number 4711' },
      { page: 2, text: 'Total due 99 EUR' },
    ]);
    expect(text?.text).toBe('Invoice number 4711\n\nTotal due 99 EUR');
    // Only the owner (or anyone, for a global document) reads it.
    expect(await getDocumentText(kit.bed.database, id, kit.bob.id)).toBeNull();
    const got = await request(kit.app).get(`/api/documents/${id}`).set('authorization', kit.alice.auth);
    expect((got.body as { data: { textStatus: string } }).data.textStatus).toBe('completed');
  });

  it('reads printed words from a PNG by OCR', async () => {
    const png = await renderPng(buildPdf([['QUARTERLY INVOICE']]));
    const res = await upload(kit.app, kit.alice, { content: png, filename: 'scan.png', contentType: 'image/png' });
    expect(res.status).toBe(201);
    expect((res.body as UploadBody).mimeType).toBe('image/png');
    await kit.api.documents.textExtraction.idle();
    const text = await getDocumentText(kit.bed.database, (res.body as UploadBody).id, kit.alice.id);
    expect(text?.status).toBe('completed');
    expect(text?.text).toContain('QUARTERLY INVOICE');
    expect(text?.pages).toHaveLength(1);
  });

  it('reads plain text, and marks types without an extractor not applicable', async () => {
    const res = await upload(kit.app, kit.alice, { content: 'héllo wörld\n', filename: 'greeting.txt', contentType: 'text/plain; charset=utf-8' });
    await kit.api.documents.textExtraction.idle();
    const text = await getDocumentText(kit.bed.database, (res.body as UploadBody).id, kit.alice.id);
    expect(text).toMatchObject({ status: 'completed', text: 'héllo wörld\n', pages: null });

    // The text is stored as the uploaded bytes, less a leading BOM (as a decoder would drop it).
    const bom = await upload(kit.app, kit.alice, { content: Buffer.from('\ufeff東京, Grüße\r\n', 'utf8'), filename: 'bom.csv', contentType: 'text/csv' });
    expect(bom.body as UploadBody).toMatchObject({ mimeType: 'text/csv', textStatus: 'completed' });
    expect(await getDocumentText(kit.bed.database, (bom.body as UploadBody).id, kit.alice.id)).toMatchObject({ status: 'completed', text: '東京, Grüße\r\n' });

    const xlsx = buildZip([
      {
        name: '[Content_Types].xml',
        data: '<Types><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/></Types>',
      },
      { name: 'xl/workbook.xml', data: '<workbook/>' },
    ]);
    const sheet = await upload(kit.app, kit.alice, { content: xlsx, filename: 'sheet.xlsx', contentType: 'application/octet-stream' });
    expect(sheet.status).toBe(201);
    expect(sheet.body as UploadBody).toMatchObject({ mimeType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', textStatus: 'not_applicable' });
  });

  it('spools a file larger than the in-memory size to disk, stores it byte for byte and extracts its text in the background', async () => {
    const big = Buffer.from('Zeile mit Umlauten äöü und Text.\n'.repeat(45_000));
    expect(big.length).toBeGreaterThan(1.5 * 1024 * 1024);
    const res = await upload(kit.app, kit.alice, { content: big, filename: 'big.txt', contentType: 'text/plain' });
    expect(res.status).toBe(201);
    const body = res.body as UploadBody;
    expect(body).toMatchObject({ fileSize: big.length, textStatus: 'pending' });
    expect(await filesUnder(kit.tempDir)).toEqual([]);
    const file = await download(kit.app, `/api/documents/${body.id}/download`, kit.alice);
    expect(file.body.equals(big)).toBe(true);
    await kit.api.documents.textExtraction.idle();
    const text = await getDocumentText(kit.bed.database, body.id, kit.alice.id);
    expect(text?.status).toBe('completed');
    expect(text?.text).toBe(big.toString('utf8'));
  });

  it('finishes extractions a crashed process left behind when the sweeper runs', async () => {
    const res = await upload(kit.app, kit.alice, { content: buildPdf([['Left behind']]), filename: 'left.pdf', contentType: 'application/pdf' });
    const id = (res.body as UploadBody).id;
    await kit.api.documents.textExtraction.idle();
    // As if the process died: one row still pending (never started), one claimed long ago.
    await kit.bed.database.query(`UPDATE documents SET text_status = 'pending', extracted_text = NULL, text_pages = NULL, text_attempts = 0, updated_at = now() - interval '1 hour' WHERE id = $1`, [
      id,
    ]);
    const res2 = await upload(kit.app, kit.alice, { content: 'stalled\n', filename: 'stalled.txt', contentType: 'text/plain' });
    const id2 = (res2.body as UploadBody).id;
    await kit.api.documents.textExtraction.idle();
    await kit.bed.database.query(`UPDATE documents SET text_status = 'processing', extracted_text = NULL, text_attempts = 1, text_claimed_at = now() - interval '1 hour' WHERE id = $1`, [id2]);
    expect((await getDocumentText(kit.bed.database, id, kit.alice.id))?.status).toBe('pending');

    expect(await kit.api.documents.textExtraction.sweepOnce()).toBe(2);
    expect(await getDocumentText(kit.bed.database, id, kit.alice.id)).toMatchObject({ status: 'completed', text: 'Left behind' });
    expect(await getDocumentText(kit.bed.database, id2, kit.alice.id)).toMatchObject({ status: 'completed', text: 'stalled\n' });
    expect(await kit.api.documents.textExtraction.sweepOnce()).toBe(0);
  });

  it('gives up on a document whose extraction was interrupted too often', async () => {
    const res = await upload(kit.app, kit.alice, { content: 'doomed\n', filename: 'doomed.txt', contentType: 'text/plain' });
    const id = (res.body as UploadBody).id;
    await kit.api.documents.textExtraction.idle();
    await kit.bed.database.query(`UPDATE documents SET text_status = 'processing', text_attempts = 3, text_claimed_at = now() - interval '1 hour' WHERE id = $1`, [id]);
    await kit.api.documents.textExtraction.sweepOnce();
    expect(await getDocumentText(kit.bed.database, id, kit.alice.id)).toMatchObject({ status: 'failed', text: null, error: 'Text extraction was interrupted too many times' });
  });
});
