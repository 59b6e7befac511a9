import request from 'supertest';
import { renderRtioMessages, rtioFromClassification } from '@docflow/rtio';
import type { PublicApi } from '../../app';
import { openDocumentsKit, SERVICE_KEY, upload, type DocumentsKit, type ErrorBody, type UploadBody } from '../test-support/documents-kit';
import { buildTestApi, testConfig } from '../../test-support/test-app';
import { RTIO_DOCUMENT_CHARS } from './rtio-generation.service';
import { FakeLlmService } from './test-support/fake-llm-service';

const INVOICE_TEXT = ['ACME CORPORATION', 'Invoice Number: INV-2024-0042', 'Invoice Date: 2024-03-15', 'Bill To: Globex Ltd', 'Total: $1,200.00'].join('\n');

const classification = { document_type: 'invoice', category: 'Finance', key_features: ['invoice number', 'IBAN'], confidence: 0.9 };

interface GenerateBody {
  success: boolean;
  rtio_prompt: {
    title: string;
    description: string;
    section: string;
    type: string;
    roles: { role: string; prompt: string }[];
    tasks: string[];
    instructions: string[];
    outputFormat: string;
    exampleOutput: Record<string, unknown>;
    level: string;
    version: string;
  };
  confidence: number;
  generated_from_classification: { document_type: string; category: string };
  message: string;
  llm: { provider: string; model: string; cost: number; fields_found: number; fields_total: number } | null;
}

let kit: DocumentsKit;
let llm: FakeLlmService;
let aliceDoc: number;
let bobDoc: number;

async function promptCount(): Promise<number> {
  const rows = (await kit.bed.database.query('SELECT count(*)::int AS n FROM prompts')) as { n: number }[];
  return rows[0]?.n ?? -1;
}

function generate(auth: string, body: Record<string, unknown>, app = kit.app): request.Test {
  return request(app).post('/api/prompts/generate-rtio').set('Authorization', auth).send(body);
}

beforeAll(async () => {
  llm = await FakeLlmService.start();
  kit = await openDocumentsKit({ LLM_SERVICE_URL: llm.url, RTIO_TIMEOUT_SECONDS: '30' });
  const a = await upload(kit.app, kit.alice, { content: INVOICE_TEXT, filename: 'invoice.txt', contentType: 'text/plain', fields: { title: 'March invoice' } });
  const b = await upload(kit.app, kit.bob, { content: 'Bob private notes', filename: 'notes.txt', contentType: 'text/plain', fields: { title: 'Notes' } });
  expect([a.status, b.status]).toEqual([201, 201]);
  aliceDoc = (a.body as UploadBody).id;
  bobDoc = (b.body as UploadBody).id;
  await kit.api.documents.textExtraction.idle();
});

afterAll(async () => {
  await kit?.close();
  await llm?.close();
});

beforeEach(() => {
  llm.mode = 'answer';
  llm.content = {};
  llm.calls.length = 0;
});

describe('POST /api/prompts/generate-rtio', () => {
  it('drafts a prompt from the classification, fills its example output through the LLM service, and saves nothing', async () => {
    llm.content = { invoice_number: 'INV-2024-0042', invoice_date: '2024-03-15', total_amount: 1200, vendor_name: null, line_items: null, unknown_key: 'dropped' };
    const before = await promptCount();
    const res = await generate(kit.alice.auth, { document_id: aliceDoc, classification_result: classification });
    expect(res.status).toBe(200);
    const body = res.body as GenerateBody;
    const draft = rtioFromClassification(classification);
    const total = Object.keys(draft.exampleOutput).length;

    expect(body.success).toBe(true);
    expect(body.rtio_prompt).toMatchObject({
      title: 'Invoice Extraction',
      section: 'Finance',
      type: 'extraction',
      outputFormat: 'json',
      level: 'user',
      version: '1.0.0',
      roles: draft.roles,
      tasks: draft.tasks,
      instructions: draft.instructions,
    });
    // The document's values replace the example's; what the LLM left out keeps the example; unknown keys are dropped.
    expect(body.rtio_prompt.exampleOutput).toEqual({ ...draft.exampleOutput, invoice_number: 'INV-2024-0042', invoice_date: '2024-03-15', total_amount: 1200 });
    expect(body.llm).toEqual({ provider: 'fake', model: 'fake-model', cost: 0.0012, fields_found: 3, fields_total: total });
    expect(body.confidence).toBe(Math.round(0.9 * (0.7 + (0.3 * 3) / total) * 100) / 100);
    expect(body.generated_from_classification).toEqual({ document_type: 'invoice', category: 'Finance' });
    expect(body.message).toMatch(/found 3 of \d+ fields/);

    // One call, with the service key, carrying the draft rendered by the shared renderer over the document's text.
    expect(llm.calls).toHaveLength(1);
    const call = llm.calls[0]!;
    expect(call.serviceKey).toBe(SERVICE_KEY);
    expect(call.body['messages']).toEqual(renderRtioMessages(draft, { documentText: INVOICE_TEXT, maxDocumentChars: RTIO_DOCUMENT_CHARS }));
    expect(call.body['output_format']).toBe('json');
    expect(await promptCount()).toBe(before);

    // The draft saves as it is with POST /prompts.
    const saved = await request(kit.app).post('/api/prompts').set('Authorization', kit.alice.auth).send({ data: body.rtio_prompt });
    expect(saved.status).toBe(201);
    expect((saved.body as { data: { exampleOutput: Record<string, unknown>; level: string } }).data).toMatchObject({ level: 'user', exampleOutput: body.rtio_prompt.exampleOutput });
  });

  it('reads the answer when the LLM service returns JSON as text, and accepts a {data: ...} body', async () => {
    llm.content = 'Here you go:\n```json\n{"invoice_number": "INV-2024-0042"}\n```';
    const res = await generate(kit.alice.auth, { data: { document_id: aliceDoc, classification_result: { document_type: 'Invoice' } } });
    expect(res.status).toBe(200);
    const body = res.body as GenerateBody;
    expect(body.rtio_prompt.exampleOutput['invoice_number']).toBe('INV-2024-0042');
    expect(body.llm?.fields_found).toBe(1);
    // Without a category, the known type's section is used.
    expect(body.generated_from_classification).toEqual({ document_type: 'Invoice', category: 'Finance' });
  });

  it('answers 400 without document_id or classification_result', async () => {
    const none = await generate(kit.alice.auth, {});
    expect(none.status).toBe(400);
    expect((none.body as ErrorBody).error).toMatchObject({ name: 'BadRequestError', details: { errors: ['document_id is required', 'classification_result is required'] } });
    const noClassification = await generate(kit.alice.auth, { document_id: aliceDoc });
    expect((noClassification.body as ErrorBody).error.details.errors).toEqual(['classification_result is required']);
    const noDocument = await generate(kit.alice.auth, { classification_result: classification });
    expect((noDocument.body as ErrorBody).error.details.errors).toEqual(['document_id is required']);
    const bad = await generate(kit.alice.auth, { document_id: 'x', classification_result: { category: 'Finance', confidence: 3 } });
    expect(bad.status).toBe(400);
    const errors = (bad.body as ErrorBody).error.details.errors?.join(' | ') ?? '';
    expect(errors).toMatch(/document_id/);
    expect(errors).toMatch(/document_type/);
    expect(errors).toMatch(/confidence/);
    expect(llm.calls).toHaveLength(0);
  });

  it('answers 403 for another user’s document and 404 for a missing one, without calling the LLM service', async () => {
    const other = await generate(kit.alice.auth, { document_id: bobDoc, classification_result: classification });
    expect(other.status).toBe(403);
    expect((other.body as ErrorBody).error.name).toBe('ForbiddenError');
    const missing = await generate(kit.alice.auth, { document_id: 987654, classification_result: classification });
    expect(missing.status).toBe(404);
    // An integer beyond any record id names no document either (not a database error).
    const beyond = await generate(kit.alice.auth, { document_id: 99999999999, classification_result: classification });
    expect(beyond.status).toBe(404);
    expect((beyond.body as ErrorBody).error).toMatchObject({ status: 404, name: 'NotFoundError', message: 'Document not found' });
    expect(llm.calls).toHaveLength(0);
    expect((await request(kit.app).post('/api/prompts/generate-rtio').send({ document_id: aliceDoc, classification_result: classification })).status).toBe(401);
  });

  it('answers 500 with details.error when the LLM service fails', async () => {
    llm.mode = 'fail';
    const before = await promptCount();
    const res = await generate(kit.alice.auth, { document_id: aliceDoc, classification_result: classification });
    expect(res.status).toBe(500);
    const error = (res.body as ErrorBody).error as ErrorBody['error'] & { details: { error?: string } };
    expect(error.name).toBe('InternalServerError');
    expect(error.message).toBe('RTIO generation failed');
    expect(error.details.error).toMatch(/answered 500 internal_error: provider exploded/);
    expect(await promptCount()).toBe(before);
  });

  it('drafts from the classification alone when the document has no text yet', async () => {
    await kit.bed.database.query(`UPDATE documents SET text_status = 'pending', extracted_text = NULL WHERE id = $1`, [aliceDoc]);
    try {
      const res = await generate(kit.alice.auth, { document_id: aliceDoc, classification_result: classification });
      expect(res.status).toBe(200);
      const body = res.body as GenerateBody;
      expect(body.llm).toBeNull();
      expect(body.rtio_prompt.exampleOutput).toEqual(rtioFromClassification(classification).exampleOutput);
      expect(body.confidence).toBe(0.63);
      expect(body.message).toMatch(/still being extracted/);
      expect(llm.calls).toHaveLength(0);
    } finally {
      await kit.bed.database.query(`UPDATE documents SET text_status = 'completed', extracted_text = $2 WHERE id = $1`, [aliceDoc, INVOICE_TEXT]);
    }
  });

  describe('with RTIO_TIMEOUT_SECONDS=1', () => {
    let api: PublicApi;

    beforeAll(() => {
      const config = testConfig({ STORAGE_DIR: kit.storageDir, UPLOAD_TMP_DIR: kit.tempDir, SERVICE_KEY, LLM_SERVICE_URL: llm.url, RTIO_TIMEOUT_SECONDS: '1' });
      api = buildTestApi(kit.bed, { config });
    });

    afterAll(async () => {
      await api.documents.stop();
    });

    it('answers 408 when the LLM service does not answer in time, and saves nothing', async () => {
      llm.mode = 'hang';
      const before = await promptCount();
      const res = await generate(kit.alice.auth, { document_id: aliceDoc, classification_result: classification }, api.app);
      expect(res.status).toBe(408);
      expect((res.body as ErrorBody).error).toMatchObject({ status: 408, name: 'RequestTimeoutError', message: 'RTIO generation timed out' });
      expect(llm.calls).toHaveLength(1);
      expect(await promptCount()).toBe(before);
    });
  });
});
