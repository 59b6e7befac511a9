import { HttpTarget, type LlmServiceProcess, startBuiltLlmService, type TargetHit, type TargetReply } from '@docflow/testing';
import { chain, definition, endNode, startNode, taskNode } from '../../test-support/definitions';
import { ProcessorHarness } from '../../test-support/processor-harness';

jest.setTimeout(60000);

const SERVICE_KEY = 'wfp-ai-int-service-key-0123456789';
const USER = 42;

const INVOICE_TEXT = [
  'Invoice number: INV-2024-0077',
  'Invoice date: 2024-03-01',
  'Vendor: Acme Office Supplies Ltd',
  'Total amount due: 150.00 EUR',
  'Acme Office Supplies delivered ten boxes of printer paper to the Globex head office in March.',
  'The order was placed by the Globex facilities team and signed off by the finance department.',
  'Payment is due within thirty days of the invoice date by bank transfer to the account on file.',
  'Late payments incur a fee of two percent per month, as agreed in the supply contract of 2023.',
].join('\n');

const PROMPT = {
  id: 21,
  title: 'Invoice fields',
  type: 'extraction',
  level: 'user',
  section: 'Finance',
  description: 'Invoice number, vendor and total',
  roles: [{ role: 'system', prompt: 'You are an accounts-payable clerk.' }],
  tasks: ['Extract the invoice number, the vendor and the total amount due'],
  instructions: ['Copy values exactly as written'],
  outputFormat: 'json',
  exampleOutput: { invoice_number: 'INV-0001', vendor: 'Example Ltd', total_amount_due: 0 },
};

function publicApiRoutes(api: HttpTarget): void {
  api.on('GET /api/internal/prompts', (hit: TargetHit): TargetReply => {
    if (hit.headers['x-service-key'] !== SERVICE_KEY) return { status: 401, body: { error: { status: 401, name: 'UnauthorizedError', message: 'bad key' } } };
    return { body: { data: [PROMPT] } };
  });
}

function extractAndSummarize(id: string): Record<string, unknown> {
  return definition(
    [
      startNode(),
      taskNode('extract', 'extraction_task', { prompt_id: 21, output_format: 'json' }),
      taskNode('summarize', 'summarization_task', { summary_type: 'brief', max_length: 60, text: '{{text_input}}' }),
      endNode(),
    ],
    chain('start', 'extract', 'summarize', 'end'),
    { id },
  );
}

describe('AI task types through a stand-in LLM service (RabbitMQ + PostgreSQL)', () => {
  let h: ProcessorHarness;
  let llm: HttpTarget;
  let api: HttpTarget;
  const failSummaries = { on: false };
  let seq = 500;
  const nextId = () => (seq += 1);

  beforeAll(async () => {
    [llm, api] = await Promise.all([HttpTarget.start(), HttpTarget.start()]);
    publicApiRoutes(api);
    llm.on('POST /api/v1/extract', (hit): TargetReply => {
      if (hit.headers['x-service-key'] !== SERVICE_KEY) return { status: 401, body: { error: 'unauthorized', message: 'bad key' } };
      const body = JSON.parse(hit.body) as { task_hint?: string };
      if (body.task_hint === 'summarize') {
        if (failSummaries.on) return { status: 503, body: { error: 'llm_service_unavailable', message: 'openai is unavailable after 3 attempt(s): HTTP 502', details: { retry_after: 3 } } };
        return {
          body: { content: 'Acme billed Globex 150 EUR for printer paper.', model: 'fake-1', provider: 'openai', cost: 0.0004, usage: { prompt_tokens: 50, completion_tokens: 10, total_tokens: 60 } },
        };
      }
      return {
        body: {
          content: { invoice_number: 'INV-2024-0077', vendor: 'Acme Office Supplies Ltd', total_amount_due: 150 },
          model: 'fake-1',
          provider: 'openai',
          cost: 0.0021,
          usage: { prompt_tokens: 120, completion_tokens: 30, total_tokens: 150 },
        },
      };
    });
    h = await ProcessorHarness.start('wfp_ai');
    await h.startProcessor({ LLM_SERVICE_URL: llm.url(''), PUBLIC_API_INTERNAL_URL: api.url(''), SERVICE_KEY });
  });

  afterAll(async () => {
    await h?.stop();
    await Promise.all([llm?.stop(), api?.stop()]);
  });

  beforeEach(() => {
    failSummaries.on = false;
  });

  it('runs extraction_task then summarization_task on text input, with each step’s cost in task_states', async () => {
    const id = nextId();
    await h.submit(`wf_${id}`, { workflow_definition: extractAndSummarize('ai-1'), inputs: { text_input: INVOICE_TEXT }, execution_id: id, user_id: USER });
    const res = await h.results.next(`wf_${id}`);
    expect(res).toMatchObject({ status: 'completed', execution_id: id });
    expect(res.outputs?.['extract']).toEqual({
      extraction_result: { invoice_number: 'INV-2024-0077', vendor: 'Acme Office Supplies Ltd', total_amount_due: 150 },
      confidence: 1,
      tokens_used: 150,
      cost: 0.0021,
      prompt_id: 21,
      prompt_title: 'Invoice fields',
      provider: 'openai',
      model: 'fake-1',
    });
    expect(res.outputs?.['summarize']).toEqual({
      summary: 'Acme billed Globex 150 EUR for printer paper.',
      word_count: 8,
      summary_type: 'brief',
      truncated: false,
      provider: 'openai',
      model: 'fake-1',
      tokens_used: 60,
      cost: 0.0004,
    });
    expect(res.task_states?.['extract']).toMatchObject({ status: 'completed', task_type: 'extraction_task', cost: 0.0021 });
    expect(res.task_states?.['summarize']).toMatchObject({ status: 'completed', task_type: 'summarization_task', cost: 0.0004 });
    // The prompts were read for the run's user; the stored prompt reached the LLM as RTIO messages.
    expect(api.hitsOf('/api/internal/prompts')).not.toHaveLength(0);
    const extractCall = llm.hits.map((x) => JSON.parse(x.body) as { task_hint?: string; messages?: { role: string; content: string }[] }).find((b) => b.task_hint === 'extract');
    expect(extractCall?.messages?.[0]?.content).toContain('1. Extract the invoice number, the vendor and the total amount due');
    expect(extractCall?.messages?.[1]?.content).toContain('<document>\nInvoice number: INV-2024-0077');
  });

  it('fails the node with llm_error when the LLM service is unavailable, keeping the earlier step’s cost', async () => {
    failSummaries.on = true;
    const id = nextId();
    await h.submit(`wf_${id}`, { workflow_definition: extractAndSummarize('ai-2'), inputs: { text_input: INVOICE_TEXT }, execution_id: id, user_id: USER });
    const res = await h.results.next(`wf_${id}`);
    expect(res).toMatchObject({ status: 'failed', error_type: 'llm_error', failed_node: 'summarize' });
    expect(res.error).toBe('LLM call failed: llm-service answered 503 llm_service_unavailable: openai is unavailable after 3 attempt(s): HTTP 502 (retry after 3 s)');
    expect(res.task_states?.['extract']).toMatchObject({ status: 'completed', cost: 0.0021 });
    expect(res.task_states?.['summarize']).toMatchObject({ status: 'failed', error_type: 'llm_error' });
    expect(res.task_states?.['end']?.status).toBe('pending');
  });

  it('refuses a foreign file_url as a configuration error without calling anything', async () => {
    const id = nextId();
    const before = llm.hits.length;
    const def = definition([startNode(), taskNode('sum', 'summarization_task', { file_url: 'https://files.example.com/report.pdf' })], chain('start', 'sum'));
    await h.submit(`wf_${id}`, { workflow_definition: def, inputs: {}, execution_id: id, user_id: USER });
    const res = await h.results.next(`wf_${id}`);
    expect(res).toMatchObject({ status: 'failed', error_type: 'configuration_error', failed_node: 'sum' });
    expect(res.error).toContain('https://files.example.com/report.pdf is not a Docflow document URL');
    expect(llm.hits.length).toBe(before);
  });
});

describe('AI task types through the real LLM service with no provider (local engine)', () => {
  let h: ProcessorHarness;
  let api: HttpTarget;
  let service: LlmServiceProcess;

  beforeAll(async () => {
    [api, service] = await Promise.all([HttpTarget.start(), startBuiltLlmService(SERVICE_KEY)]);
    publicApiRoutes(api);
    h = await ProcessorHarness.start('wfp_ai_local');
    await h.startProcessor({ LLM_SERVICE_URL: service.url, PUBLIC_API_INTERNAL_URL: api.url(''), SERVICE_KEY });
  });

  afterAll(async () => {
    await h?.stop();
    await Promise.all([api?.stop(), service?.stop()]);
  });

  it('extracts the invoice fields and writes an extractive summary labelled provider local', async () => {
    const id = 900;
    await h.submit(`wf_${id}`, { workflow_definition: extractAndSummarize('ai-local'), inputs: { text_input: INVOICE_TEXT }, execution_id: id, user_id: USER });
    const res = await h.results.next(`wf_${id}`);
    expect(res.status).toBe('completed');
    const extract = res.outputs?.['extract'] as { extraction_result: Record<string, unknown>; provider: string };
    expect(extract.provider).toBe('local');
    expect(extract.extraction_result['invoice_number']).toBe('INV-2024-0077');
    const summary = res.outputs?.['summarize'] as { summary: string; word_count: number; provider: string; summary_type: string };
    expect(summary.provider).toBe('local');
    expect(summary.summary_type).toBe('brief');
    expect(summary.word_count).toBeGreaterThan(0);
    expect(summary.word_count).toBeLessThanOrEqual(60);
    // Extractive: the summary is lines of the input (each one a statement), in their order;
    // a `label: value` line without closing punctuation gets a full stop of its own.
    let rest = summary.summary;
    let picked = 0;
    for (const line of INVOICE_TEXT.split('\n')) {
      if (!rest.startsWith(line)) continue;
      rest = rest.slice(line.length);
      if (!/[.!?]$/.test(line) && rest.startsWith('.')) rest = rest.slice(1);
      rest = rest.trimStart();
      picked += 1;
    }
    expect(rest).toBe('');
    expect(picked).toBeGreaterThan(0);
    expect(res.task_states?.['summarize']).toMatchObject({ status: 'completed', cost: 0 });
  });
});
