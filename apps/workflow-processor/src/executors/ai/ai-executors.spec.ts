import { buildScope } from '@docflow/workflow';
import type { ContentClient, DocumentText, ExtractCall, ExtractResult, InternalPrompt, LlmClient } from '@docflow/llm-client';
import { LlmServiceError } from '@docflow/llm-client';
import { silentLogger } from '@docflow/service-kit';
import type { CompletedOutcome, NodeContext } from '../executor';
import type { AiExecutorDeps } from './ai-deps';
import { AI_TASK_TYPES, buildAiExecutors } from './ai-executors';
import { documentIdFromUrl } from './node-text';

const PROMPT: InternalPrompt = {
  id: 31,
  title: 'Invoice fields',
  type: 'extraction',
  level: 'user',
  section: 'Finance',
  description: 'Invoice number and total',
  roles: [{ role: 'system', prompt: 'You read invoices for {{company}}.' }],
  tasks: ['Extract the invoice number and total'],
  instructions: [],
  outputFormat: 'json',
  exampleOutput: { invoice_number: 'INV-1', total: 0 },
};

interface Setup {
  deps: AiExecutorDeps;
  calls: ExtractCall[];
  textReads: { id: number; userId?: number }[];
  promptReads: number;
}

function setup(answers: (req: ExtractCall) => unknown, docs: Record<number, string> = {}): Setup {
  const calls: ExtractCall[] = [];
  const textReads: { id: number; userId?: number }[] = [];
  const state = { promptReads: 0 };
  const llm: LlmClient = {
    async extract(req) {
      calls.push(req);
      const content = answers(req);
      if (content instanceof Error) throw content;
      const res: ExtractResult = { content: content as ExtractResult['content'], model: 'm', provider: 'local', cost: 0.01, usage: { prompt_tokens: 30, completion_tokens: 10, total_tokens: 40 } };
      return res;
    },
    chat: () => Promise.reject(new Error('unused')),
    embeddings: () => Promise.reject(new Error('unused')),
    close: () => undefined,
  };
  const content: ContentClient = {
    async documentText(id, o) {
      textReads.push({ id, userId: o?.userId });
      const text = docs[id];
      if (text === undefined) throw new Error(`no doc ${id}`);
      const doc: DocumentText = { document_id: id, title: `doc-${id}.pdf`, mime_type: 'application/pdf', text, pages: null, page_count: null, text_status: 'completed' };
      return doc;
    },
    async visiblePrompts() {
      state.promptReads += 1;
      return [PROMPT];
    },
    async prompt(id) {
      if (id !== PROMPT.id) throw new Error('unknown prompt');
      return PROMPT;
    },
    close: () => undefined,
  };
  return {
    deps: { llm, content, documentOrigins: ['http://127.0.0.1:1337', 'http://docflow.example'] },
    calls,
    textReads,
    get promptReads() {
      return state.promptReads;
    },
  };
}

function ctx(taskType: string, config: Record<string, unknown>, inputs: Record<string, unknown> = {}, outputs: Record<string, unknown> = {}): NodeContext {
  return {
    executionKey: 'execution:1',
    jobId: 'wf_1',
    executionId: 1,
    runUserId: 42,
    nodeId: 'n1',
    nodeType: 'task',
    taskType,
    label: 'Node',
    config,
    rawConfig: config,
    scope: buildScope({ inputs, outputs, context: { user_id: 42, execution_id: 1 } }),
    inputs,
    signal: new AbortController().signal,
    logger: silentLogger,
  };
}

async function run(s: Setup, taskType: (typeof AI_TASK_TYPES)[number], c: NodeContext): Promise<CompletedOutcome & { output: Record<string, unknown> }> {
  const outcome = await buildAiExecutors(s.deps)[taskType](c);
  return outcome as CompletedOutcome & { output: Record<string, unknown> };
}

describe('AI executors', () => {
  it('fail as not_available when no LLM client is wired', async () => {
    const executors = buildAiExecutors(undefined);
    for (const t of AI_TASK_TYPES) await expect(executors[t](ctx(t, {}))).rejects.toMatchObject({ errorType: 'not_available' });
  });

  describe('summarization_task', () => {
    it('asks for the summary type and word limit, and reports words, tokens and cost', async () => {
      const s = setup(() => 'First point.  Second point here.');
      const out = await run(s, 'summarization_task', ctx('summarization_task', { summary_type: 'bullet_points', max_length: '120' }, { text_input: 'A long text.' }));
      expect(s.calls[0]).toEqual({
        prompt_template: 'Summarize the document below as bullet points, each on its own line starting with "- ", using at most 120 words in total.',
        content: 'A long text.',
        task_hint: 'summarize',
        output_format: 'text',
      });
      expect(out.cost).toBe(0.01);
      expect(out.output).toEqual({
        summary: 'First point.  Second point here.',
        word_count: 5,
        summary_type: 'bullet_points',
        truncated: false,
        provider: 'local',
        model: 'm',
        tokens_used: 40,
        cost: 0.01,
      });
    });

    it('cuts a summary longer than max_length', async () => {
      const s = setup(() => 'one two three four five six');
      const out = await run(s, 'summarization_task', ctx('summarization_task', { max_length: 4, text: 'x y z' }));
      expect(out.output).toMatchObject({ summary: 'one two three four…', word_count: 4, truncated: true, summary_type: 'brief' });
    });

    it('reads a Docflow document named by file_url for the run user, and refuses a foreign URL', async () => {
      const s = setup(() => 'Summary.', { 5: 'Document five text.' });
      const out = await run(s, 'summarization_task', ctx('summarization_task', { file_url: 'http://docflow.example/api/documents/5/download' }));
      expect(s.textReads).toEqual([{ id: 5, userId: 42 }]);
      expect(s.calls[0]?.content).toBe('Document five text.');
      expect(out.output.document_id).toBe(5);
      await expect(run(s, 'summarization_task', ctx('summarization_task', {}, { file_url: 'https://evil.example/x.pdf' }))).rejects.toMatchObject({
        errorType: 'configuration_error',
        message: expect.stringContaining('is not a Docflow document URL') as unknown,
      });
      expect(s.calls).toHaveLength(1);
    });

    it('refuses a node without text and a bad summary type', async () => {
      const s = setup(() => 'x');
      await expect(run(s, 'summarization_task', ctx('summarization_task', { text: '{{missing.field}}' }))).rejects.toMatchObject({
        errorType: 'configuration_error',
        message: expect.stringContaining('summarization_task needs text') as unknown,
      });
      await expect(run(s, 'summarization_task', ctx('summarization_task', { summary_type: 'haiku', text: 'x' }))).rejects.toMatchObject({
        errorType: 'configuration_error',
        message: 'summary_type must be one of brief, detailed, bullet_points (got "haiku")',
      });
    });

    it('fails with llm_error and the retry hint when the LLM service is unavailable', async () => {
      const s = setup(
        () => new LlmServiceError('llm-service', 'llm_service_unavailable', 'llm-service answered 503 llm_service_unavailable: down', { status: 503, retryable: true, retryAfterSeconds: 9 }),
      );
      await expect(run(s, 'summarization_task', ctx('summarization_task', { text: 'x' }))).rejects.toMatchObject({
        errorType: 'llm_error',
        message: 'LLM call failed: llm-service answered 503 llm_service_unavailable: down (retry after 9 s)',
      });
    });
  });

  describe('extraction_task', () => {
    it('renders the stored prompt with prompt_data and parses JSON from a text answer', async () => {
      const s = setup(() => 'Here you go: {"invoice_number": "INV-9", "total": null}');
      const out = await run(s, 'extraction_task', ctx('extraction_task', { prompt_id: '31', prompt_data: { company: 'Globex' } }, { text: 'Invoice INV-9' }));
      const sent = s.calls[0];
      expect([sent?.output_format, sent?.task_hint]).toEqual(['json', 'extract']);
      expect(sent?.messages?.[0]?.content).toContain('You read invoices for Globex.');
      expect(sent?.messages?.[1]?.content).toContain('Values for this run (JSON): {"company":"Globex"}');
      expect(sent?.messages?.[1]?.content).toContain('<document>\nInvoice INV-9\n</document>');
      expect(out.output).toEqual({
        extraction_result: { invoice_number: 'INV-9', total: null },
        confidence: 0.5,
        tokens_used: 40,
        cost: 0.01,
        prompt_id: 31,
        prompt_title: 'Invoice fields',
        provider: 'local',
        model: 'm',
      });
    });

    it('uses the prompt an upstream classification matched', async () => {
      const s = setup(() => ({ invoice_number: 'INV-2', total: 3, confidence: 0.8 }));
      const upstream = { classify: { prompt_title: 'Invoice fields', classification: { matched_prompt_id: 31 } } };
      const out = await run(s, 'extraction_task', ctx('extraction_task', { use_classification_prompt: true }, { text: 'Invoice INV-2' }, upstream));
      expect(out.output).toMatchObject({ prompt_id: 31, confidence: 0.8 });
      await expect(run(s, 'extraction_task', ctx('extraction_task', { use_classification_prompt: 'true' }, { text: 'x' }))).rejects.toMatchObject({ errorType: 'configuration_error' });
    });

    it('extracts every stated field without a prompt, and keeps text answers as text', async () => {
      const s = setup(() => 'invoice_number: INV-3');
      const out = await run(s, 'extraction_task', ctx('extraction_task', { output_format: 'text' }, { content: 'Invoice INV-3' }));
      expect(out.output).toMatchObject({ extraction_result: 'invoice_number: INV-3', confidence: null, prompt_id: null });
      expect(s.calls[0]?.messages?.[0]?.content).toContain('Extract the key information of the document');
    });
  });

  describe('llm_task', () => {
    it('needs a prompt', async () => {
      const s = setup(() => 'x');
      await expect(run(s, 'llm_task', ctx('llm_task', {}, { text_input: 'hi' }))).rejects.toMatchObject({ errorType: 'configuration_error', message: 'llm_task needs prompt_id or prompt_text' });
    });

    it('sends the document and text_input together, or one request each', async () => {
      const s = setup((req) => ({ echo: req.messages?.[1]?.content.length ?? 0 }), { 8: 'Doc eight.' });
      const combined = await run(s, 'llm_task', ctx('llm_task', { prompt_text: 'Answer as JSON', document_id: 8 }, { text_input: 'Extra words.' }));
      expect(s.calls).toHaveLength(1);
      expect(s.calls[0]?.messages?.[1]?.content).toContain('[doc-8.pdf]\nDoc eight.\n\n[text_input]\nExtra words.');
      expect(combined.output).toMatchObject({ tokens_used: 40, cost: 0.01, prompt_id: null });
      const split = await run(s, 'llm_task', ctx('llm_task', { prompt_text: 'Answer', document_id: 8, process_combined_inputs: false, output_format: 'text' }, { text_input: 'Extra words.' }));
      expect(s.calls).toHaveLength(3);
      expect(Array.isArray(split.output.result) && split.output.result.length).toBe(2);
      expect(split.output).toMatchObject({ tokens_used: 80, cost: 0.02 });
      expect(split.cost).toBe(0.02);
    });
  });

  describe('classification_task and classify_and_extract', () => {
    const classifyAnswers = (req: ExtractCall): unknown => {
      if (req.prompt_template?.startsWith('Classify')) return { document_type: 'invoice', category: 'Finance', key_features: ['total'], confidence: 0.9, reasoning: 'r1' };
      if (req.prompt_template?.startsWith('Match')) return { prompt_id: 31, prompt_title: 'Invoice fields', match_confidence: 0.75, match_reasoning: 'r2' };
      return { invoice_number: 'INV-5', total: 10 };
    };

    it('classifies by document type and names the matched prompt', async () => {
      const s = setup(classifyAnswers);
      const out = await run(s, 'classification_task', ctx('classification_task', {}, { text: 'Invoice INV-5 total 10' }));
      expect(out.output).toMatchObject({
        prompt_title: 'Invoice fields',
        section: 'Finance',
        confidence: 0.9,
        classification: { classification_type: 'document_type', document_type: 'invoice', category: 'Finance', matched_prompt_id: 31, match_confidence: 0.75 },
        tokens_used: 80,
        cost: 0.02,
      });
      expect(out.cost).toBe(0.02);
    });

    it('classifies sentiment in one call without reading prompts', async () => {
      const s = setup(() => ({ document_type: 'positive', confidence: 0.7, reasoning: 'happy' }));
      const out = await run(s, 'classification_task', ctx('classification_task', { classification_type: 'sentiment', include_confidence: false }, { text: 'Great service, thanks!' }));
      expect(s.calls).toHaveLength(1);
      expect(s.promptReads).toBe(0);
      expect(out.output).toMatchObject({ prompt_title: null, confidence: null, classification: { classification_type: 'sentiment', label: 'positive' } });
    });

    it('extracts with the matched prompt after classifying, or skips extraction when told', async () => {
      const s = setup(classifyAnswers);
      const out = await run(s, 'classify_and_extract', ctx('classify_and_extract', {}, { text: 'Invoice INV-5 total 10' }));
      expect(out.output).toMatchObject({
        classification: { type: 'invoice', confidence: 0.9, matched_prompt_id: 31, prompt_title: 'Invoice fields' },
        extraction_result: { invoice_number: 'INV-5', total: 10 },
        extraction_prompt_id: 31,
        tokens_used: 120,
        cost: 0.03,
      });
      const skipped = await run(s, 'classify_and_extract', ctx('classify_and_extract', { extract_after_classify: false }, { text: 'Invoice INV-5' }));
      expect(skipped.output).toMatchObject({ extraction_result: null, tokens_used: 80 });
    });
  });

  it('recognises Docflow document URLs only', () => {
    const origins = ['http://127.0.0.1:1337'];
    expect(documentIdFromUrl('http://127.0.0.1:1337/api/documents/12/download', origins)).toBe(12);
    expect(documentIdFromUrl('http://127.0.0.1:1337/api/documents/12/signed-download?expires=1&signature=x', origins)).toBe(12);
    expect(documentIdFromUrl('/api/documents/7/download', origins)).toBe(7);
    expect(() => documentIdFromUrl('http://127.0.0.1:9999/api/documents/12/download', origins)).toThrow(/not a Docflow document URL/);
    expect(() => documentIdFromUrl('http://127.0.0.1:1337/api/documents/global/download/abc', origins)).toThrow(/global download link/);
  });
});
