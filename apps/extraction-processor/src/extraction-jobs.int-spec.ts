import type { ResultMessage } from '@docflow/contracts';
import { FakePublicApi } from './test-support/fake-public-api';
import { ExtractionHarness } from './test-support/harness';
import { startBuiltLlmService, type LlmServiceProcess } from '@docflow/testing';
import { type ApiHit, type ApiReply, LoopbackApi } from './test-support/loopback-api';

jest.setTimeout(60000);

const SERVICE_KEY = 'extraction-int-service-key-0123456789';
const ALICE = 7;
const BOB = 8;

const INVOICE_TEXT = [
  'INVOICE',
  'Invoice number: INV-2024-0077',
  'Invoice date: 2024-03-01',
  'Vendor: Acme Office Supplies Ltd',
  'Bill to: Globex Corporation',
  'Line items: 10 x Printer paper at 12.50 EUR',
  'Subtotal: 125.00 EUR',
  'VAT 20%: 25.00 EUR',
  'Total amount due: 150.00 EUR',
  'Payment terms: due within 30 days of the invoice date.',
].join('\n');

const RECIPE_TEXT = 'Grandma’s apple crumble. Preheat the oven. Slice four apples, toss them with cinnamon, cover with butter, flour and oats, and bake until golden. Serve warm with custard.';

function seed(api: FakePublicApi): void {
  api
    .addDocument({ id: 101, ownerId: ALICE, title: 'acme-invoice.pdf', text: INVOICE_TEXT, pages: [{ page: 1, text: INVOICE_TEXT }] })
    .addDocument({ id: 102, ownerId: ALICE, title: 'crumble.txt', mime_type: 'text/plain', text: RECIPE_TEXT, pages: null })
    .addDocument({
      id: 103,
      ownerId: ALICE,
      title: 'scan.png',
      mime_type: 'image/png',
      text: 'Scanned receipt text',
      pages: [{ page: 1, text: 'Scanned receipt text' }],
      statuses: ['pending', 'processing', 'completed'],
    })
    .addDocument({ id: 201, ownerId: BOB, title: 'bob.pdf', text: 'Bob private text', pages: null })
    .addPrompt({
      id: 11,
      title: 'Invoice data extraction',
      type: 'extraction',
      section: 'Finance',
      description: 'Extract the invoice number, vendor, invoice date, subtotal, VAT and total amount due from supplier invoices',
      roles: [{ role: 'system', prompt: 'You are an accounts-payable clerk.' }],
      tasks: ['Extract the invoice fields'],
      instructions: ['Copy numbers exactly'],
      outputFormat: 'json',
      exampleOutput: { invoice_number: 'INV-0001', total_amount_due: 0 },
    })
    .addPrompt({
      id: 12,
      ownerId: ALICE,
      title: 'Employment contract review',
      type: 'extraction',
      section: 'Human Resources',
      description: 'Parties, start date, salary, notice period and termination of employment contracts',
    })
    .addPrompt({ id: 13, ownerId: BOB, title: 'Bob invoice prompt', type: 'extraction', section: 'Finance', description: 'Bob only: invoice totals' });
}

function candidatesAfter(template: string, header: string): Record<string, unknown>[] {
  const lines = template.split('\n');
  const at = lines.findIndex((l) => l.startsWith(header));
  return JSON.parse(lines[at + 1] ?? '[]') as Record<string, unknown>[];
}

/** A stand-in LLM service that answers from what the request carries. */
function fakeLlmAnswer(hit: ApiHit, state: { down: boolean }): ApiReply {
  if (hit.headers['x-service-key'] !== SERVICE_KEY) return { status: 401, body: { error: 'unauthorized', message: 'bad key' } };
  if (state.down) return { status: 503, body: { error: 'llm_service_unavailable', message: 'openai is unavailable after 3 attempt(s): HTTP 500', details: { retry_after: 4, provider: 'openai' } } };
  const body = hit.body as { prompt_template?: string; content?: string; messages?: { role: string; content: string }[] };
  const template = body.prompt_template ?? '';
  const content = body.content ?? '';
  let answer: unknown;
  if (template.startsWith('Classify')) {
    answer = /invoice/i.test(content)
      ? {
          document_type: 'invoice',
          section: 'Finance',
          category: 'Finance',
          key_features: ['invoice number', 'total amount due'],
          confidence: 0.92,
          reasoning: 'It has an invoice number and a total due',
        }
      : { document_type: 'recipe', section: null, category: 'Cooking', key_features: ['apples', 'oven'], confidence: 0.61, reasoning: 'Cooking instructions' };
  } else if (template.startsWith('Match')) {
    const prompts = candidatesAfter(template, 'Candidate prompts');
    const hitPrompt = prompts.find((p) => content.toLowerCase().includes(String(p.title).split(' ')[0]?.toLowerCase() ?? '\u0000'));
    answer = hitPrompt
      ? { prompt_id: hitPrompt.prompt_id, prompt_title: hitPrompt.title, match_confidence: 0.88, match_reasoning: `The document is an ${String(hitPrompt.title).split(' ')[0]?.toLowerCase()}` }
      : { prompt_id: null, prompt_title: null, match_confidence: 0.12, match_reasoning: 'None of the prompts is about this kind of document' };
  } else {
    answer = { invoice_number: 'INV-2024-0077', total_amount_due: 150 };
  }
  return { body: { content: answer, model: 'fake-model-1', provider: 'openai', cost: 0.00125, usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 } } };
}

function outputsOf(msg: ResultMessage): Record<string, unknown> {
  return msg.outputs ?? {};
}

describe('extraction processor with a stand-in LLM service (RabbitMQ)', () => {
  let h: ExtractionHarness;
  let publicApi: FakePublicApi;
  let llm: LoopbackApi;
  const llmState = { down: false };

  beforeAll(async () => {
    [publicApi, llm] = await Promise.all([FakePublicApi.start(SERVICE_KEY), LoopbackApi.start()]);
    seed(publicApi);
    llm.on('POST', /^\/api\/v1\/extract$/, (hit) => fakeLlmAnswer(hit, llmState));
    h = await ExtractionHarness.start('extraction_int');
    await h.startProcessor({ LLM_SERVICE_URL: llm.url, PUBLIC_API_INTERNAL_URL: publicApi.url, SERVICE_KEY });
  });

  afterAll(async () => {
    await h?.stop();
    await Promise.all([publicApi?.stop(), llm?.stop()]);
  });

  beforeEach(() => {
    llmState.down = false;
  });

  it('classifies a document and matches the stored prompt made for it', async () => {
    await h.submit('cls_match', 'classification', {
      documents: [{ id: 101, title: 'acme-invoice.pdf', mime_type: 'application/pdf', file_url: 'http://x/api/documents/101/download' }],
      collection_id: 3,
      user_id: ALICE,
    });
    const res = await h.results.final('cls_match');
    expect(res.status).toBe('completed');
    expect(h.results.all('cls_match')[0]?.status).toBe('processing');
    // One path: the same result on the public API's queue, and the results_queue copy marked so that the router does not relay it again.
    expect(await h.publicResults.final('cls_match')).toEqual(res);
    expect(h.deliveredTo.every((to) => to === 'public_api_results_queue')).toBe(true);
    const out = outputsOf(res);
    expect(out.extraction_result).toEqual({
      classification: { type: 'invoice', category: 'Finance', confidence: 0.92 },
      document_type: 'invoice',
      category: 'Finance',
      key_features: ['invoice number', 'total amount due'],
      confidence: 0.92,
      reasoning: 'It has an invoice number and a total due',
      matched_prompt_id: 11,
      matched_prompt_title: 'Invoice data extraction',
      matched_prompt_section: 'Finance',
      match_confidence: 0.88,
      match_reasoning: 'The document is an invoice',
    });
    expect(out.metadata).toEqual({ document_name: 'acme-invoice.pdf', category: 'Finance', classification_method: 'llm' });
    expect(out.documents).toEqual([{ document_id: 101, extraction_result: out.extraction_result, metadata: out.metadata, tokens_used: 240, cost: 0.0025 }]);
    expect(out).toMatchObject({ collection_id: 3, tokens_used: 240, cost: 0.0025, provider: 'openai' });
    // Only Alice's visible prompts were offered: the system prompt and her own, never Bob's.
    const matchCall = llm.hits.filter((x) => String((x.body as { prompt_template?: string }).prompt_template).startsWith('Match')).at(-1);
    const offered = candidatesAfter(String((matchCall?.body as { prompt_template: string }).prompt_template), 'Candidate prompts').map((p) => p.prompt_id);
    expect(offered).toEqual([11, 12]);
    expect(
      publicApi.api
        .hitsOf(/\/documents\/101\/text$/)
        .at(-1)
        ?.query.get('user_id'),
    ).toBe(String(ALICE));
  });

  it('reports no match with a null prompt id and 0.0, for every document of a job', async () => {
    await h.submit('cls_nomatch', 'classification', { documents: [{ id: 102 }, { id: 101 }], user_id: ALICE });
    const res = await h.results.final('cls_nomatch');
    expect(res.status).toBe('completed');
    const out = outputsOf(res);
    expect(out.extraction_result).toMatchObject({
      document_type: 'recipe',
      category: 'Cooking',
      matched_prompt_id: null,
      match_confidence: 0,
      match_reasoning: 'No prompt fits: None of the prompts is about this kind of document',
    });
    expect(out.metadata).toEqual({ document_name: 'crumble.txt', category: 'Cooking', classification_method: 'llm' });
    const docs = out.documents as { document_id: number; extraction_result: { matched_prompt_id: number | null } }[];
    expect(docs.map((d) => [d.document_id, d.extraction_result.matched_prompt_id])).toEqual([
      [102, null],
      [101, 11],
    ]);
  });

  it('returns the text of documents for an OCR job, waiting for text still being extracted', async () => {
    await h.submit('ocr_1', 'OCR', { documents: [{ id: 103 }, { id: 102 }], user_id: ALICE });
    const res = await h.results.final('ocr_1');
    expect(res.status).toBe('completed');
    expect(outputsOf(res).documents).toEqual([
      { document_id: 103, document_name: 'scan.png', text: 'Scanned receipt text', pages: [{ page: 1, text: 'Scanned receipt text' }], page_count: 1 },
      { document_id: 102, document_name: 'crumble.txt', text: RECIPE_TEXT, pages: null, page_count: null },
    ]);
    expect(publicApi.api.hitsOf(/\/documents\/103\/text$/)).toHaveLength(3);
  });

  it('extracts with a stored prompt rendered as RTIO messages', async () => {
    await h.submit('docx_1', 'document_extraction', { documents: [{ id: 101 }], user_id: ALICE, config: { prompt_id: 11, model_type: 'provider_b' } });
    const res = await h.results.final('docx_1');
    expect(res.status).toBe('completed');
    expect(outputsOf(res)).toEqual({
      documents: [
        {
          document_id: 101,
          document_name: 'acme-invoice.pdf',
          extraction_result: { invoice_number: 'INV-2024-0077', total_amount_due: 150 },
          tokens_used: 120,
          cost: 0.00125,
          provider: 'openai',
          model: 'fake-model-1',
        },
      ],
      prompt_id: 11,
      prompt_title: 'Invoice data extraction',
      tokens_used: 120,
      cost: 0.00125,
    });
    const sent = llm.hits.at(-1)?.body as { messages: { role: string; content: string }[]; output_format: string; model_type: string; task_hint: string };
    expect([sent.output_format, sent.model_type, sent.task_hint]).toEqual(['json', 'provider_b', 'extract']);
    expect(sent.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(sent.messages[0]?.content).toContain('You are an accounts-payable clerk.');
    expect(sent.messages[0]?.content).toContain('1. Extract the invoice fields');
    expect(sent.messages[1]?.content).toContain(`<document>\n${INVOICE_TEXT}\n</document>`);
  });

  it('fails with validation_error for another user’s document or prompt', async () => {
    await h.submit('docx_foreign', 'document_extraction', { documents: [{ id: 201 }], user_id: ALICE, config: { prompt_id: 11 } });
    expect(await h.results.final('docx_foreign')).toMatchObject({
      status: 'failed',
      error_type: 'validation_error',
      error: `Document 201: Document 201 does not exist or is not visible to user ${ALICE}`,
    });
    await h.submit('docx_prompt', 'document_extraction', { documents: [{ id: 101 }], user_id: ALICE, config: { prompt_id: 13 } });
    expect(await h.results.final('docx_prompt')).toMatchObject({ status: 'failed', error_type: 'validation_error', error: `Prompt 13 does not exist or is not visible to user ${ALICE}` });
  });

  it('fails with llm_error when the LLM service answers 503', async () => {
    llmState.down = true;
    await h.submit('cls_down', 'classification', { documents: [{ id: 101 }], user_id: ALICE });
    const res = await h.results.final('cls_down');
    expect(res).toMatchObject({ status: 'failed', error_type: 'llm_error' });
    expect(res.error).toBe('Document 101: llm-service answered 503 llm_service_unavailable: openai is unavailable after 3 attempt(s): HTTP 500');
  });
});

describe('extraction processor with the real LLM service and no provider (local engine)', () => {
  let h: ExtractionHarness;
  let publicApi: FakePublicApi;
  let service: LlmServiceProcess;

  beforeAll(async () => {
    [publicApi, service] = await Promise.all([FakePublicApi.start(SERVICE_KEY), startBuiltLlmService(SERVICE_KEY)]);
    seed(publicApi);
    h = await ExtractionHarness.start('extraction_local');
    await h.startProcessor({ LLM_SERVICE_URL: service.url, PUBLIC_API_INTERNAL_URL: publicApi.url, SERVICE_KEY });
  });

  afterAll(async () => {
    await h?.stop();
    await Promise.all([publicApi?.stop(), service?.stop()]);
  });

  it('matches the invoice to the invoice prompt at 0.7 or above, and the recipe to nothing, deterministically', async () => {
    await h.submit('local_cls', 'classification', { documents: [{ id: 101 }, { id: 102 }], user_id: ALICE });
    const res = await h.results.final('local_cls');
    expect(res.status).toBe('completed');
    const docs = outputsOf(res).documents as { document_id: number; extraction_result: Record<string, unknown>; metadata: Record<string, unknown> }[];
    const [invoice, recipe] = docs;
    expect(invoice?.extraction_result).toMatchObject({ document_type: 'invoice', category: 'Finance', matched_prompt_id: 11 });
    expect(invoice?.extraction_result.match_confidence).toBeGreaterThanOrEqual(0.7);
    expect(invoice?.metadata).toEqual({ document_name: 'acme-invoice.pdf', category: 'Finance', classification_method: 'local' });
    expect(recipe?.extraction_result).toMatchObject({ matched_prompt_id: null, match_confidence: 0 });
    expect(typeof recipe?.extraction_result.match_reasoning).toBe('string');
    // Same input, same answer.
    await h.submit('local_cls_again', 'classification', { documents: [{ id: 101 }, { id: 102 }], user_id: ALICE });
    expect(outputsOf(await h.results.final('local_cls_again')).documents).toEqual(docs);
  });
});
