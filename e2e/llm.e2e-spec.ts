import { createCollection, createPrompt, generateJob, type PromptBody, uploadText, waitForJob } from './support/document-jobs';
import { OpenAiStub, requestText, type ChatCompletionBody } from './support/openai-stub';
import { Stack } from './support/stack';
import { chain, definition, endNode, type ErrorBody, objectSchema, startNode, taskNode, type TimelineEntryView, type TimelineView, WorkflowApi } from './support/workflow-api';

jest.setTimeout(180000);

const INVOICE_TEXT = [
  'INVOICE INV-2024-0077',
  'From: Acme Office Supplies Ltd',
  'To: Globex Corporation',
  'Line items: 10 x Printer paper at 12.50 EUR',
  'VAT: 25.00 EUR',
  'Amount due: 150.00 EUR',
  'Please pay within 30 days.',
].join('\n');

const BILL_OF_LADING_TEXT = [
  'BILL OF LADING',
  'B/L number: MSKU-88231',
  'Shipper: Acme Office Supplies Ltd',
  'Consignee: Globex Corporation',
  'Vessel: Maersk Elba',
  'Port of loading: Rotterdam',
  'Port of discharge: New York',
  'Container: MSKU 123456-7',
  'Cargo weight: 18,400 kg',
].join('\n');

const RECIPE_TEXT =
  'Grandma’s apple crumble. Preheat the oven to 180 degrees. Slice four apples and toss them with cinnamon. ' +
  'Cover them with a mix of butter, flour and oats, and bake for forty minutes until golden. Serve warm with custard.';

/** A memo of several sentences: what the workflows summarise. */
const MEMO_TEXT = [
  'The Rotterdam warehouse migration finished on 12 May 2024, two weeks ahead of plan.',
  'All 4,200 pallets were moved without loss, and picking accuracy stayed above 99.6 percent during the move.',
  'The new conveyor line doubled the outbound capacity of the site.',
  'Two forklift drivers were injured slightly in the first week; the loading dock layout has been changed since.',
  'Energy use per pallet fell by 18 percent thanks to the heat pumps.',
  'The board is asked to approve the budget for the second phase, the cold-storage hall, at its June meeting.',
  'Questions go to ops@example.com.',
].join(' ');

/** The prompt alice stores and runs in extraction_task. */
const ALICE_PROMPT = {
  title: 'Warehouse report facts',
  type: 'extraction',
  level: 'system', // asked for; a non-admin always gets `user`
  section: 'Operations',
  description: 'Pulls the dates, counts and percentages out of an operations report.',
  roles: [{ role: 'system', prompt: 'You are an operations analyst who reports only what the text states.' }],
  tasks: ['Extract the migration date, the email address for questions and the energy saving.'],
  instructions: ['Copy numbers exactly as written.', 'Use null for anything the text does not state.'],
  outputFormat: 'json',
  exampleOutput: { migration_date: '2024-01-31', email: 'someone@example.com', energy_saving: '10 percent' },
};

let aliceId: number;

/** The timeline as served: TimelineView plus the execution's total cost. */
type TimelineWithCost = TimelineView & { total_cost: number };

async function activity(api: WorkflowApi, name: string, def: Record<string, unknown>): Promise<number> {
  expect(await api.validate(def)).toEqual({ valid: true, errors: [] });
  return api.createActivity({ name, workflow_definition: def });
}

/** start → summarize → end, on the run input `text`. */
function summarizeWorkflow(maxWords = 40): Record<string, unknown> {
  return definition(
    [startNode(), taskNode('summarize', 'summarization_task', { summary_type: 'brief', max_length: maxWords }, 'Summarize'), endNode()],
    chain('start', 'summarize', 'end'),
    objectSchema({ text: { type: 'string' } }),
  );
}

/** start → extract (a stored prompt) → summarize → end, both on the run input `text`. */
function extractThenSummarizeWorkflow(promptId: number): Record<string, unknown> {
  return definition(
    [
      startNode(),
      taskNode('extract', 'extraction_task', { prompt_id: String(promptId), output_format: 'json' }, 'Extract facts'),
      taskNode('summarize', 'summarization_task', { summary_type: 'brief', max_length: 60 }, 'Summarize'),
      endNode(),
    ],
    chain('start', 'extract', 'summarize', 'end'),
    objectSchema({ text: { type: 'string' } }),
  );
}

function step(timeline: TimelineEntryView[], nodeId: string): TimelineEntryView {
  const found = timeline.find((s) => s.node_id === nodeId);
  if (!found) throw new Error(`no timeline entry for ${nodeId}: ${JSON.stringify(timeline)}`);
  return found;
}

describe('with no provider configured (the local engine)', () => {
  let stack: Stack;
  let alice: WorkflowApi;
  let bob: WorkflowApi;
  let admin: WorkflowApi;
  /** alice's ALICE_PROMPT, stored through POST /prompts. */
  let alicePrompt: PromptBody;

  beforeAll(async () => {
    stack = await Stack.start({ portOffset: 300 });
    [alice, bob, admin] = await Promise.all([
      WorkflowApi.login(stack.api, 'alice@docflow.local', 'Alice#Pass123'),
      WorkflowApi.login(stack.api, 'bob@docflow.local', 'Bob#Pass123'),
      WorkflowApi.login(stack.api, 'admin@docflow.local', 'Admin#Pass123'),
    ]);
    aliceId = (await alice.me()).id;
    alicePrompt = await createPrompt(alice, ALICE_PROMPT);
  });

  afterAll(async () => {
    await stack?.stop();
  });

  describe('prompts', () => {
    it("keeps a user's prompt to its owner and shows an administrator's system prompt to everyone", async () => {
      const mine = alicePrompt;
      expect(mine).toMatchObject({ title: ALICE_PROMPT.title, type: 'extraction', level: 'user', section: 'Operations', owner: { id: aliceId, username: 'alice' } });

      expect((await alice.request('GET', `/prompts/${mine.id}`)).status).toBe(200);
      const hidden = await bob.request<ErrorBody>('GET', `/prompts/${mine.id}`);
      expect(hidden.status).toBe(404);
      expect(hidden.body.error).toMatchObject({ status: 404, name: 'NotFoundError' });
      expect((await bob.request('PUT', `/prompts/${mine.id}`, { data: { title: 'taken over' } })).status).toBe(404);
      expect((await bob.request('DELETE', `/prompts/${mine.id}`)).status).toBe(404);
      const bobList = await bob.expect<{ data: { id: number }[] }>(200, 'GET', '/prompts?pagination[pageSize]=100');
      expect(bobList.data.map((p) => p.id)).not.toContain(mine.id);

      const system = await createPrompt(admin, { title: 'Purchase order lines', type: 'extraction', level: 'system', section: 'Procurement', tasks: ['List the order lines.'] });
      expect(system.level).toBe('system');
      for (const user of [alice, bob]) {
        expect((await user.expect<{ data: { id: number; level: string } }>(200, 'GET', `/prompts/${system.id}`)).data).toMatchObject({ id: system.id, level: 'system' });
        const systemOnly = await user.expect<{ data: { id: number; level: string }[] }>(200, 'GET', '/prompts?filters[level][$eq]=system&pagination[pageSize]=100');
        expect(systemOnly.data.map((p) => p.id)).toContain(system.id);
        expect(systemOnly.data.every((p) => p.level === 'system')).toBe(true);
      }
      const aliceUserLevel = await alice.expect<{ data: { id: number }[] }>(200, 'GET', '/prompts?filters[level][$eq]=user&pagination[pageSize]=100');
      expect(aliceUserLevel.data.map((p) => p.id)).toEqual([mine.id]);
    });
  });

  describe('AI task types in workflows', () => {
    it('summarises text input with summarization_task and labels the summary provider local', async () => {
      const activityId = await activity(alice, 'summarize memo (local)', summarizeWorkflow(40));
      const done = await alice.run(activityId, { text: MEMO_TEXT }, 30000);

      expect(done).toMatchObject({ status: 'completed', error: null, failed_node: null });
      const out = done.outputs?.['summarize'] as Record<string, unknown>;
      expect(out).toMatchObject({ provider: 'local', summary_type: 'brief', cost: 0 });
      const summary = out['summary'] as string;
      expect(summary.length).toBeGreaterThan(20);
      expect(out['word_count']).toBeGreaterThan(5);
      expect(out['word_count']).toBeLessThanOrEqual(40);
      expect(out['tokens_used']).toBeGreaterThan(0);
      // Extractive: the summary is made of the memo's own sentences.
      const firstSentence = summary.split(/(?<=\.)\s+/)[0]!.replace(/…$/, '');
      expect(MEMO_TEXT).toContain(firstSentence);
    });

    it('runs extraction_task with a stored prompt, then summarization_task, and records each step with its cost', async () => {
      const prompt = alicePrompt;
      const activityId = await activity(alice, 'extract then summarize (local)', extractThenSummarizeWorkflow(prompt.id));
      const id = await alice.start(activityId, { text: MEMO_TEXT });
      const done = await alice.waitFor(id, { timeoutMs: 30000 });

      expect(done).toMatchObject({ status: 'completed', error: null });
      expect(done.task_states['extract']?.status).toBe('completed');
      expect(done.task_states['summarize']?.status).toBe('completed');
      const extract = done.outputs?.['extract'] as Record<string, unknown>;
      expect(extract).toMatchObject({ provider: 'local', prompt_id: prompt.id, prompt_title: ALICE_PROMPT.title, cost: 0 });
      // What the memo literally says fills the prompt's example keys; what it does not say stays null.
      expect(extract['extraction_result']).toEqual({ migration_date: '2024-05-12', email: 'ops@example.com', energy_saving: null });
      expect(extract['confidence']).toBeCloseTo(2 / 3, 4);
      expect(done.outputs?.['summarize']).toMatchObject({ provider: 'local' });

      const tl = (await alice.timeline(id)) as TimelineWithCost;
      expect(tl.total_cost).toBe(0);
      expect(step(tl.timeline, 'extract')).toMatchObject({ step_type: 'extraction_task', status: 'completed', cost: 0 });
      expect(step(tl.timeline, 'summarize')).toMatchObject({ step_type: 'summarization_task', status: 'completed', cost: 0 });
      expect(tl.timeline.findIndex((s) => s.node_id === 'extract')).toBeLessThan(tl.timeline.findIndex((s) => s.node_id === 'summarize'));
      expect(Date.parse(step(tl.timeline, 'summarize').started_at!)).toBeGreaterThanOrEqual(Date.parse(step(tl.timeline, 'extract').completed_at!));
    });
  });

  describe('classification job over a collection', () => {
    let invoiceId: number;
    let ladingId: number;
    let recipeId: number;
    let collectionId: number;

    beforeAll(async () => {
      invoiceId = await uploadText(alice, 'acme-invoice', INVOICE_TEXT);
      ladingId = await uploadText(alice, 'msku-88231', BILL_OF_LADING_TEXT);
      recipeId = await uploadText(alice, 'apple-crumble', RECIPE_TEXT);
      collectionId = await createCollection(alice, 'March paperwork', [invoiceId, ladingId]);
      await alice.expect(200, 'POST', `/collections/${collectionId}/add-document`, { documentId: recipeId });
    });

    it('classifies each document and matches it to the fitting stored prompt the caller can see', async () => {
      // The invoice's prompt is the system prompt seeded by migration; the bill of lading's is alice's own.
      const seeded = (await alice.expect<{ data: { id: number; title: string; section: string | null }[] }>(200, 'GET', '/prompts?filters[level][$eq]=system&pagination[pageSize]=100')).data.find(
        (p) => p.title === 'Invoice Extraction',
      );
      expect(seeded).toMatchObject({ section: 'Finance' });
      const ladingPrompt = await createPrompt(alice, {
        title: 'Bill of lading',
        type: 'extraction',
        level: 'user',
        section: 'Logistics',
        description: 'Shipper, consignee, vessel, port of loading, port of discharge, container numbers and cargo weight of a bill of lading',
        tasks: ['Extract the shipment fields'],
        outputFormat: 'json',
      });
      // Bob's prompt names this very invoice; alice must never be matched to it.
      const bobs = await createPrompt(bob, {
        title: 'Acme Office Supplies invoice INV-2024-0077',
        type: 'extraction',
        level: 'user',
        section: 'Finance',
        description: 'Invoice INV-2024-0077 from Acme Office Supplies Ltd to Globex Corporation: printer paper line items, VAT, amount due',
        tasks: ['Extract the invoice fields'],
      });

      const submitted = await generateJob(alice, collectionId, { job_type: 'classification' });
      expect(submitted.status).toBe(200);
      expect(submitted.body).toMatchObject({ success: true });
      expect(submitted.body.job_id).toMatch(/\S/);

      const job = await waitForJob(alice, submitted.body.job_id, 60000);
      expect(job).toMatchObject({ job_id: submitted.body.job_id, status: 'completed', error: null });
      const docs = job.result?.documents ?? [];
      expect(docs.map((d) => d.document_id).sort((a, b) => a - b)).toEqual([invoiceId, ladingId, recipeId].sort((a, b) => a - b));

      const invoice = docs.find((d) => d.document_id === invoiceId)!;
      expect(invoice.extraction_result).toMatchObject({ document_type: 'invoice', category: 'Finance', matched_prompt_id: seeded!.id, matched_prompt_title: 'Invoice Extraction' });
      expect(invoice.extraction_result.matched_prompt_id).not.toBe(bobs.id);
      expect(invoice.extraction_result.match_confidence).toBeGreaterThanOrEqual(0.7);
      expect(invoice.extraction_result.match_confidence).toBeLessThanOrEqual(1);
      expect(invoice.extraction_result.confidence).toBeGreaterThan(0);
      expect(invoice.extraction_result.confidence).toBeLessThanOrEqual(1);
      expect(invoice.extraction_result.key_features).toContain('invoice');
      expect(invoice.extraction_result.reasoning).toMatch(/\S/);
      expect(invoice.extraction_result.match_reasoning).toMatch(/\S/);
      expect(invoice.metadata).toEqual({ document_name: 'acme-invoice', category: 'Finance', classification_method: 'local' });

      const lading = docs.find((d) => d.document_id === ladingId)!;
      expect(lading.extraction_result).toMatchObject({ matched_prompt_id: ladingPrompt.id, matched_prompt_title: 'Bill of lading' });
      expect(lading.extraction_result.match_confidence).toBeGreaterThanOrEqual(0.7);

      const recipe = docs.find((d) => d.document_id === recipeId)!;
      expect(recipe.extraction_result).toMatchObject({ document_type: 'unknown', matched_prompt_id: null, match_confidence: 0 });
      expect(recipe.extraction_result.match_reasoning).toMatch(/\S/);

      // The job's own extraction_result and metadata are its first document's.
      expect(job.result?.extraction_result).toEqual(docs[0]!.extraction_result);
      expect(job.result?.metadata).toEqual(docs[0]!.metadata);
    });

    it("answers 404 for another user's collection and job", async () => {
      const foreign = await generateJob(bob, collectionId, { job_type: 'classification' });
      expect(foreign.status).toBe(404);
      expect((foreign.body as unknown as ErrorBody).error).toMatchObject({ status: 404, name: 'NotFoundError' });

      const submitted = await generateJob(alice, collectionId, { job_type: 'classification', document_ids: [recipeId] });
      expect(submitted.status).toBe(200);
      expect((await bob.request('GET', `/jobs/${submitted.body.job_id}/status`)).status).toBe(404);
      const job = await waitForJob(alice, submitted.body.job_id, 60000);
      expect(job.status).toBe('completed');
      expect(job.result?.documents?.map((d) => d.document_id)).toEqual([recipeId]);
    });
  });
});

describe('with LLM_PROVIDER_A_URL pointing to an OpenAI-compatible server', () => {
  const PRICED_MODEL = 'gpt-4o-mini';
  /** gpt-4o-mini: USD 0.00015 per 1k tokens in, 0.0006 per 1k out (the LLM service's built-in table). */
  const EXTRACT_USAGE = { promptTokens: 2000, completionTokens: 500 }; // 0.0003 + 0.0003
  const SUMMARY_USAGE = { promptTokens: 4000, completionTokens: 1000 }; // 0.0006 + 0.0006
  const FAIL_MARKER = 'PROVIDER-OUTAGE-DRILL';

  let stack: Stack;
  let provider: OpenAiStub;
  let alice: WorkflowApi;
  let promptId: number;

  /** JSON for requests that ask for JSON, a one-line summary otherwise; a 500 for the outage drill. */
  function answer(body: ChatCompletionBody) {
    const text = requestText(body);
    if (text.includes(FAIL_MARKER)) return { status: 500, content: 'upstream overloaded', promptTokens: 0, completionTokens: 0 };
    if (body.response_format?.type === 'json_object') {
      return { content: JSON.stringify({ migration_date: '2024-05-12', email: 'ops@example.com', energy_saving: '18 percent' }), ...EXTRACT_USAGE };
    }
    return { content: 'The warehouse move finished early and safely; the board must approve phase two in June.', ...SUMMARY_USAGE };
  }

  beforeAll(async () => {
    provider = await OpenAiStub.start({ answer, model: `${PRICED_MODEL}-2024-07-18`, record: true });
    stack = await Stack.start({
      portOffset: 305,
      env: {
        LLM_PROVIDER_A_URL: provider.baseUrl,
        LLM_PROVIDER_A_KIND: 'openai',
        LLM_PROVIDER_A_API_KEY: 'sk-e2e-stub-key',
        LLM_PROVIDER_A_MODEL: PRICED_MODEL,
        LLM_RETRY_BASE_MS: '20',
      },
    });
    alice = await WorkflowApi.login(stack.api, 'alice@docflow.local', 'Alice#Pass123');
    aliceId = (await alice.me()).id;
    promptId = (await createPrompt(alice, ALICE_PROMPT)).id;
  });

  afterAll(async () => {
    await stack?.stop();
    await provider?.stop();
  });

  it('summarises through the provider, labelled with its name and the priced model', async () => {
    const before = provider.count;
    const activityId = await activity(alice, 'summarize memo (provider)', summarizeWorkflow(40));
    const done = await alice.run(activityId, { text: MEMO_TEXT }, 30000);

    expect(done.status).toBe('completed');
    expect(provider.count - before).toBe(1);
    const sent = provider.requests[provider.requests.length - 1]!;
    expect(sent.model).toBe(PRICED_MODEL);
    expect(requestText(sent)).toContain(MEMO_TEXT);
    expect(provider.authorizations[provider.authorizations.length - 1]).toBe('Bearer sk-e2e-stub-key');
    expect(done.outputs?.['summarize']).toMatchObject({
      summary: 'The warehouse move finished early and safely; the board must approve phase two in June.',
      word_count: 15,
      provider: 'openai',
      model: `${PRICED_MODEL}-2024-07-18`,
      tokens_used: 5000,
      cost: 0.0012,
    });
  });

  it('runs extraction_task then summarization_task through the provider, with the cost on the timeline and in the analytics', async () => {
    const activityId = await activity(alice, 'extract then summarize (provider)', extractThenSummarizeWorkflow(promptId));
    const before = provider.requests.length;
    const id = await alice.start(activityId, { text: MEMO_TEXT });
    const done = await alice.waitFor(id, { timeoutMs: 30000 });

    expect(done).toMatchObject({ status: 'completed', error: null });
    const sent = provider.requests.slice(before);
    expect(sent).toHaveLength(2);
    for (const body of sent) expect(requestText(body)).toContain(MEMO_TEXT);
    // The extraction renders alice's stored RTIO prompt into the messages and asks for JSON.
    expect(sent[0]!.response_format).toEqual({ type: 'json_object' });
    expect(requestText(sent[0]!)).toContain(ALICE_PROMPT.roles[0]!.prompt);
    expect(requestText(sent[0]!)).toContain(ALICE_PROMPT.tasks[0]!);
    expect(done.outputs?.['extract']).toMatchObject({
      extraction_result: { migration_date: '2024-05-12', email: 'ops@example.com', energy_saving: '18 percent' },
      prompt_id: promptId,
      provider: 'openai',
      tokens_used: 2500,
      cost: 0.0006,
    });
    expect(done.outputs?.['summarize']).toMatchObject({ provider: 'openai', cost: 0.0012 });

    const tl = (await alice.timeline(id)) as TimelineWithCost;
    expect(step(tl.timeline, 'extract')).toMatchObject({ step_type: 'extraction_task', status: 'completed', cost: 0.0006 });
    expect(step(tl.timeline, 'summarize')).toMatchObject({ step_type: 'summarization_task', status: 'completed', cost: 0.0012 });
    expect(tl.total_cost).toBeCloseTo(0.0018, 6);

    const analytics = await alice.expect<{ data: { activity_id: number; total_executions: number; last_30_days: { executions: number; total_cost: number } } }>(
      200,
      'GET',
      `/workflows/${activityId}/analytics`,
    );
    expect(analytics.data).toMatchObject({ activity_id: activityId, total_executions: 1 });
    expect(analytics.data.last_30_days.executions).toBe(1);
    expect(analytics.data.last_30_days.total_cost).toBeCloseTo(0.0018, 6);
  });

  it('fails the node with llm_error when the provider stays unavailable', async () => {
    const before = provider.count;
    const activityId = await activity(alice, 'summarize during an outage', summarizeWorkflow(40));
    const done = await alice.run(activityId, { text: `${FAIL_MARKER}: ${MEMO_TEXT}` }, 30000);

    expect(done).toMatchObject({ status: 'failed', failed_node: 'summarize', error_type: 'llm_error' });
    expect(done.task_states['summarize']).toMatchObject({ status: 'failed', error_type: 'llm_error' });
    expect(done.error).toMatch(/unavailable/i);
    // The LLM service retried its provider (LLM_MAX_RETRIES = 2) before giving up.
    expect(provider.count - before).toBe(3);
  });
});
