import type { ResultMessage } from '@docflow/contracts';
import { signJobUser } from '@docflow/internal-auth';
import request from 'supertest';
import { openDocumentsKit, SERVICE_KEY, upload, type Actor, type DocumentsKit, type ErrorBody, type UploadBody } from '../test-support/documents-kit';
import { FakeRouter } from '../../test-support/fake-router';
import type { ExtractionResultOutcome } from './extraction-job-results';

const ROUTER_KEY = 'classification-router-key-0123456789';
const JOB_ID = /^cls_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface SubmitBody {
  job_id: string;
  success: boolean;
  message: string;
  job_type: string;
  status: string;
  document_count: number;
}

interface StatusBody {
  job_id: string;
  job_type: string;
  status: string;
  result: ({ extraction_result: unknown; metadata: unknown } & Record<string, unknown>) | null;
  error: string | null;
  created_at: string;
  updated_at: string | null;
}

let kit: DocumentsKit;
let router: FakeRouter;
let invoiceDoc: number;
let contractDoc: number;
let bobDoc: number;
let aliceCollection: number;
let emptyCollection: number;
let bobCollection: number;

async function uploadText(actor: Actor, title: string, text: string): Promise<number> {
  const res = await upload(kit.app, actor, { content: text, filename: `${title}.txt`, contentType: 'text/plain', fields: { title } });
  expect(res.status).toBe(201);
  return (res.body as UploadBody).id;
}

async function createCollection(actor: Actor, name: string, documents: number[]): Promise<number> {
  const res = await request(kit.app).post('/api/collections/create-collection').set('Authorization', actor.auth).send({ data: { name, documents } });
  expect(res.status).toBe(201);
  return (res.body as { id: number }).id;
}

function submit(actor: Actor, collectionId: number | string, body: Record<string, unknown> = {}): request.Test {
  return request(kit.app).post(`/api/jobs/collection/${collectionId}/generate`).set('Authorization', actor.auth).send(body);
}

function status(actor: Actor, jobId: string): request.Test {
  return request(kit.app).get(`/api/jobs/${jobId}/status`).set('Authorization', actor.auth);
}

async function jobRows(): Promise<number> {
  const rows = (await kit.bed.database.query('SELECT count(*)::int AS n FROM classification_jobs')) as { n: number }[];
  return rows[0]?.n ?? -1;
}

beforeAll(async () => {
  router = await FakeRouter.start(ROUTER_KEY);
  kit = await openDocumentsKit({ ROUTER_URL: router.url, ROUTER_API_KEY: ROUTER_KEY });
  invoiceDoc = await uploadText(kit.alice, 'invoice', 'Invoice Number: INV-7\nTotal: 10.00 EUR');
  contractDoc = await uploadText(kit.alice, 'contract', 'This Services Agreement is made between Acme and Globex.');
  bobDoc = await uploadText(kit.bob, 'bob-notes', 'Bob only');
  await kit.api.documents.textExtraction.idle();
  aliceCollection = await createCollection(kit.alice, 'Inbox', [invoiceDoc, contractDoc]);
  emptyCollection = await createCollection(kit.alice, 'Empty', []);
  bobCollection = await createCollection(kit.bob, 'Bob', [bobDoc]);
});

afterAll(async () => {
  await kit?.close();
  await router?.close();
});

describe('POST /api/jobs/collection/{collection_id}/generate', () => {
  it('submits a classification job for every document of the collection by default', async () => {
    const res = await submit(kit.alice, aliceCollection);
    expect(res.status).toBe(200);
    const body = res.body as SubmitBody;
    expect(body).toEqual({
      job_id: expect.stringMatching(JOB_ID) as unknown,
      success: true,
      message: 'Classification job queued for 2 documents',
      job_type: 'classification',
      status: 'queued',
      document_count: 2,
    });
    expect(router.job(body.job_id)).toEqual({
      job_id: body.job_id,
      job_type: 'classification',
      payload: {
        documents: [
          { id: invoiceDoc, title: 'invoice', mime_type: 'text/plain', file_url: `http://docs.test:1337/api/documents/${invoiceDoc}/download`, text_status: 'completed' },
          { id: contractDoc, title: 'contract', mime_type: 'text/plain', file_url: `http://docs.test:1337/api/documents/${contractDoc}/download`, text_status: 'completed' },
        ],
        collection_id: aliceCollection,
        user_id: kit.alice.id,
        user_signature: signJobUser(kit.config.INTERNAL_SERVICE_JWT_SECRET, body.job_id, kit.alice.id),
        metadata: {},
        config: {},
      },
      apiKey: ROUTER_KEY,
    });
  });

  it('sends only the named documents, with the job type, metadata and config asked for', async () => {
    const res = await submit(kit.alice, aliceCollection, { job_type: 'document_extraction', document_ids: [contractDoc, contractDoc], metadata: { source: 'test' }, config: { prompt_id: 3 } });
    expect(res.status).toBe(200);
    const body = res.body as SubmitBody;
    expect(body.job_id).toMatch(/^ext_/);
    expect(body.message).toBe('Document extraction job queued for 1 document');
    const job = router.job(body.job_id);
    expect(job?.job_type).toBe('document_extraction');
    expect(job?.payload).toMatchObject({ documents: [{ id: contractDoc, title: 'contract' }], metadata: { source: 'test' }, config: { prompt_id: 3 } });
    const ocr = await submit(kit.alice, aliceCollection, { job_type: 'OCR', document_ids: [invoiceDoc] });
    expect((ocr.body as SubmitBody).job_id).toMatch(/^ocr_/);
  });

  it('reads null fields as left out: every document of the collection, a classification, empty metadata and config', async () => {
    const res = await submit(kit.alice, aliceCollection, { job_type: null, document_ids: null, metadata: null, config: null });
    expect(res.status).toBe(200);
    const body = res.body as SubmitBody;
    expect(body).toMatchObject({ job_type: 'classification', document_count: 2, message: 'Classification job queued for 2 documents' });
    expect(router.job(body.job_id)?.payload).toMatchObject({ documents: [{ id: invoiceDoc }, { id: contractDoc }], metadata: {}, config: {} });
  });

  it('answers 404 for another user’s collection or document, and submits nothing', async () => {
    const before = router.jobs.length;
    const collection = await submit(kit.alice, bobCollection);
    expect(collection.status).toBe(404);
    expect((collection.body as ErrorBody).error).toMatchObject({ name: 'NotFoundError', message: 'Collection not found' });
    expect((await submit(kit.alice, 999999)).status).toBe(404);
    expect((await submit(kit.alice, 'abc')).status).toBe(404);
    const doc = await submit(kit.alice, aliceCollection, { document_ids: [invoiceDoc, bobDoc] });
    expect(doc.status).toBe(404);
    expect((doc.body as ErrorBody).error).toMatchObject({ message: 'Document not found', details: { document_ids: [bobDoc] } });
    expect(router.jobs.length).toBe(before);
  });

  it('answers 400 for an empty collection and invalid fields', async () => {
    const empty = await submit(kit.alice, emptyCollection);
    expect(empty.status).toBe(400);
    expect((empty.body as ErrorBody).error.message).toBe('The collection has no documents');
    const bad = await submit(kit.alice, aliceCollection, { job_type: 'task_based_workflow', document_ids: ['x'], metadata: 'm' });
    expect(bad.status).toBe(400);
    const errors = (bad.body as ErrorBody).error.details.errors?.join(' | ') ?? '';
    expect(errors).toMatch(/job_type must be one of classification, document_extraction, OCR/);
    expect(errors).toMatch(/document_ids must hold integer ids/);
    expect(errors).toMatch(/metadata must be an object/);
    expect((await submit(kit.alice, aliceCollection, { document_ids: [] })).status).toBe(400);
  });

  it('answers 503 and keeps no record when the router cannot queue the job', async () => {
    router.mode = 'broker_down';
    try {
      const before = await jobRows();
      const res = await submit(kit.alice, aliceCollection);
      expect(res.status).toBe(503);
      expect(await jobRows()).toBe(before);
    } finally {
      router.mode = 'queue';
    }
  });
});

describe('GET /api/jobs/{job_id}/status', () => {
  let jobId: string;

  /** A new job over the invoice, as the router took it. */
  async function newJob(): Promise<string> {
    return ((await submit(kit.alice, aliceCollection, { document_ids: [invoiceDoc] })).body as SubmitBody).job_id;
  }

  /** What the results consumer does with a result on public_api_results_queue (the extraction family's handler). */
  function deliver(msg: Omit<ResultMessage, 'job_id'> & { job_id?: string }): Promise<ExtractionResultOutcome> {
    return kit.api.documents.extractionResults.apply({ job_id: jobId, ...msg });
  }

  beforeAll(async () => {
    jobId = await newJob();
  });

  it('answers the job’s own status with no result while the job is queued or processing', async () => {
    const queued = await status(kit.alice, jobId);
    expect(queued.status).toBe(200);
    expect(queued.body).toMatchObject({ job_id: jobId, job_type: 'classification', status: 'queued', result: null, error: null });
    expect(await deliver({ status: 'processing', outputs: {}, task_states: {}, sequence: 1 })).toEqual({ outcome: 'applied', jobId, status: 'processing' });
    expect((await status(kit.alice, jobId)).body).toMatchObject({ status: 'processing', result: null });
  });

  it('maps the stored outputs into {extraction_result, metadata} once completed', async () => {
    const extraction = {
      classification: 'invoice',
      document_type: 'invoice',
      category: 'Finance',
      key_features: ['invoice number', 'total'],
      confidence: 0.82,
      reasoning: 'It has an invoice number and a total.',
      matched_prompt_id: 1,
      match_confidence: 0.91,
      match_reasoning: 'Matches "Invoice Extraction".',
    };
    const metadata = { document_name: 'invoice', category: 'Finance', classification_method: 'local' };
    await deliver({ status: 'completed', outputs: { extraction_result: extraction, metadata }, task_states: {}, sequence: 3 });
    const res = await status(kit.alice, jobId);
    expect(res.status).toBe(200);
    const body = res.body as StatusBody;
    expect(body.status).toBe('completed');
    expect(body.result).toEqual({ extraction_result: extraction, metadata });
    expect(body.error).toBeNull();
    expect(Date.parse(body.updated_at ?? '')).toBeGreaterThanOrEqual(Date.parse(body.created_at));
  });

  it('applies a duplicate delivery once, and changes nothing of a finished job', async () => {
    const before = (await status(kit.alice, jobId)).body as StatusBody;
    expect(await deliver({ status: 'completed', outputs: { extraction_result: { document_type: 'other' } }, sequence: 3 })).toEqual({ outcome: 'ignored', jobId, status: 'completed' });
    expect(await deliver({ status: 'processing', outputs: {}, sequence: 2 })).toEqual({ outcome: 'ignored', jobId, status: 'completed' });
    expect(await deliver({ status: 'failed', error: 'too late', sequence: 9 })).toEqual({ outcome: 'ignored', jobId, status: 'completed' });
    expect((await status(kit.alice, jobId)).body).toEqual(before);
  });

  it('ignores a result for a job it never recorded, recording nothing', async () => {
    const rows = await jobRows();
    expect(await deliver({ job_id: 'cls_00000000-0000-0000-0000-000000000000', status: 'completed', outputs: {} })).toEqual({
      outcome: 'unknown_job',
      jobId: 'cls_00000000-0000-0000-0000-000000000000',
    });
    expect(await jobRows()).toBe(rows);
  });

  it('passes per-document results through for several documents, with nulls when a key is missing', async () => {
    jobId = await newJob();
    const documents = [
      { document_id: invoiceDoc, extraction_result: { document_type: 'invoice' } },
      { document_id: contractDoc, extraction_result: { document_type: 'contract' } },
    ];
    await deliver({ status: 'completed', outputs: { documents } });
    expect(((await status(kit.alice, jobId)).body as StatusBody).result).toEqual({ extraction_result: null, metadata: null, documents });
  });

  it('reports a failed job’s error without a result', async () => {
    jobId = await newJob();
    await deliver({ status: 'failed', error: 'Document 5 has no text to work on', outputs: {} });
    expect((await status(kit.alice, jobId)).body).toMatchObject({ status: 'failed', result: null, error: 'Document 5 has no text to work on' });
  });

  it('shows a job only to its owner (404 otherwise), and 404 for unknown ids', async () => {
    const other = await status(kit.bob, jobId);
    expect(other.status).toBe(404);
    expect((other.body as ErrorBody).error.message).toBe('Job not found');
    expect((await status(kit.alice, 'cls_nope')).status).toBe(404);
    expect((await request(kit.app).get(`/api/jobs/${jobId}/status`)).status).toBe(401);
  });

  it('answers from its own table while the router is down', async () => {
    await router.close();
    expect((await status(kit.alice, jobId)).body).toMatchObject({ status: 'failed', error: 'Document 5 has no text to work on' });
  });
});

describe('GET /api/internal/documents/{id}/text', () => {
  it('answers a document’s extracted text to services, scoped to a user when one is named', async () => {
    const res = await request(kit.app).get(`/api/internal/documents/${invoiceDoc}/text?user_id=${kit.alice.id}`).set('X-Service-Key', SERVICE_KEY);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ document_id: invoiceDoc, title: 'invoice', mime_type: 'text/plain', text_status: 'completed', text: 'Invoice Number: INV-7\nTotal: 10.00 EUR', text_error: null });
    expect((await request(kit.app).get(`/api/internal/documents/${invoiceDoc}/text`).set('X-Service-Key', SERVICE_KEY)).status).toBe(200);
    expect((await request(kit.app).get(`/api/internal/documents/${invoiceDoc}/text?user_id=${kit.bob.id}`).set('X-Service-Key', SERVICE_KEY)).status).toBe(404);
    expect((await request(kit.app).get('/api/internal/documents/999999/text').set('X-Service-Key', SERVICE_KEY)).status).toBe(404);
    expect((await request(kit.app).get(`/api/internal/documents/${invoiceDoc}/text?user_id=x`).set('X-Service-Key', SERVICE_KEY)).status).toBe(400);
  });

  it('needs service credentials', async () => {
    expect((await request(kit.app).get(`/api/internal/documents/${invoiceDoc}/text`)).status).toBe(401);
    expect((await request(kit.app).get(`/api/internal/documents/${invoiceDoc}/text`).set('Authorization', kit.alice.auth)).status).toBe(401);
  });
});
