import type { ExtractCall, ExtractResult, LlmClient } from '../llm-client';
import { BUILT_IN_DOCUMENT_TYPES, documentTypeOfPrompt, promptCandidate } from './candidates';
import { classifyDocument, classifyText, candidatesFor, matchPrompt, MATCH_THRESHOLD } from './classify';
import { keyTerms } from './text-features';

function fakeLlm(answers: unknown[], provider = 'local'): { llm: LlmClient; calls: ExtractCall[] } {
  const calls: ExtractCall[] = [];
  const llm: LlmClient = {
    async extract(req) {
      calls.push(req);
      const content = answers[calls.length - 1];
      if (content === undefined) throw new Error('unexpected extract call');
      const result: ExtractResult = { content: content as ExtractResult['content'], model: 'm1', provider, cost: 0.002, usage: { prompt_tokens: 40, completion_tokens: 10, total_tokens: 50 } };
      return result;
    },
    chat: () => Promise.reject(new Error('not used')),
    embeddings: () => Promise.reject(new Error('not used')),
    close: () => undefined,
  };
  return { llm, calls };
}

const PROMPTS = [
  { id: 11, title: 'Invoice data extraction', section: 'Finance', description: 'Extract invoice number, vendor, totals and due date' },
  { id: 12, title: 'Employment contract review', section: 'Legal', description: 'Parties, salary, notice period' },
];
const TEXT = 'INVOICE INV-2024-001\nVendor: Acme Corp\nTotal due: 1,250.00 EUR\nDue date: 2024-03-01\nInvoice total includes VAT.';

/** The JSON array that follows "Candidate ...:" in a classification prompt. */
function candidatesIn(call: ExtractCall | undefined): Record<string, unknown>[] {
  const lines = (call?.prompt_template ?? '').split('\n');
  const at = lines.findIndex((l) => l.startsWith('Candidate'));
  return JSON.parse(lines[at + 1] ?? '[]') as Record<string, unknown>[];
}

describe('classification operations', () => {
  it('classifies, then matches a prompt at or above the threshold, summing the cost of both calls', async () => {
    const { llm, calls } = fakeLlm([
      { document_type: 'invoice', section: 'Finance', category: 'invoice', key_features: null, confidence: 0.91, reasoning: 'Has an invoice number and a total due' },
      { prompt_id: null, prompt_title: 'invoice DATA extraction', match_confidence: 0.83, match_reasoning: 'Shares invoice, totals and due date' },
    ]);
    const out = await classifyDocument(llm, { text: TEXT, title: 'inv.pdf', prompts: PROMPTS, modelType: 'provider_b' });
    expect(out.result).toEqual({
      classification: { type: 'invoice', category: 'Finance', confidence: 0.91 },
      document_type: 'invoice',
      category: 'Finance',
      key_features: keyTerms(TEXT),
      confidence: 0.91,
      reasoning: 'Has an invoice number and a total due',
      matched_prompt_id: 11,
      matched_prompt_title: 'Invoice data extraction',
      matched_prompt_section: 'Finance',
      match_confidence: 0.83,
      match_reasoning: 'Shares invoice, totals and due date',
    });
    expect(out.result.key_features).toContain('invoice');
    expect(out.method).toBe('local');
    expect(out.usage).toEqual({ cost: 0.004, tokens_used: 100, provider: 'local', model: 'm1', calls: 2 });
    expect(calls.map((c) => [c.task_hint, c.output_format, c.model_type])).toEqual([
      ['classify', 'json', 'provider_b'],
      ['classify', 'json', 'provider_b'],
    ]);
    expect(calls[0]?.content).toBe(`Title: inv.pdf\n\n${TEXT}`);
    // Phase 1 offers the built-in types and the prompts; phase 2 only the prompts, with their ids.
    const labels = candidatesIn(calls[0]).map((c) => c.label);
    expect(labels).toEqual([...BUILT_IN_DOCUMENT_TYPES.map((t) => t.label), 'Invoice data extraction', 'Employment contract review']);
    expect(candidatesIn(calls[1])).toEqual([
      { prompt_id: 11, title: 'Invoice data extraction', section: 'Finance', description: 'Extract invoice number, vendor, totals and due date' },
      { prompt_id: 12, title: 'Employment contract review', section: 'Legal', description: 'Parties, salary, notice period' },
    ]);
    expect(calls[1]?.prompt_template).toContain('classified as: invoice (Finance)');
  });

  it('reports no match below the threshold, with 0.0 and the reason', async () => {
    const { llm } = fakeLlm([{ prompt_id: 12, prompt_title: 'Employment contract review', match_confidence: MATCH_THRESHOLD - 0.01, match_reasoning: 'weak overlap' }], 'openai');
    const { match } = await matchPrompt(llm, { text: TEXT, prompts: PROMPTS });
    expect(match).toEqual({
      matched_prompt_id: null,
      matched_prompt_title: null,
      matched_prompt_section: null,
      match_confidence: 0,
      match_reasoning: 'The closest prompt, "Employment contract review", scored 0.69, below the 0.7 threshold: weak overlap',
    });
  });

  it('reports no match when the answer names no known prompt, and makes no call without prompts', async () => {
    const { llm, calls } = fakeLlm([{ prompt_title: null, match_confidence: 0, match_reasoning: 'No candidate shares a word with the text' }]);
    expect((await matchPrompt(llm, { text: TEXT, prompts: PROMPTS })).match).toMatchObject({
      matched_prompt_id: null,
      match_confidence: 0,
      match_reasoning: 'No prompt fits: No candidate shares a word with the text',
    });
    expect((await matchPrompt(llm, { text: TEXT, prompts: [] })).match).toMatchObject({ matched_prompt_id: null, match_confidence: 0, match_reasoning: 'No prompts are available to match against' });
    expect(calls).toHaveLength(1);
  });

  it('reads a text answer holding JSON, scales percentages, and falls back when nothing fits', async () => {
    const fenced = '```json\n{"document_type": "contract", "category": "Legal", "key_features": ["governing law"], "confidence": 87, "reasoning": "clauses"}\n```';
    const { llm } = fakeLlm([fenced, { document_type: null, confidence: 0.4, reasoning: null }], 'openai');
    const first = await classifyText(llm, { text: 'This Agreement...', candidates: candidatesFor('document_type', []) });
    expect(first.classification).toMatchObject({ label: 'contract', category: 'Legal', key_features: ['governing law'], confidence: 0.87, section: 'Legal' });
    const none = await classifyText(llm, { text: 'zzz', candidates: candidatesFor('sentiment', []), type: 'sentiment' });
    expect(none.classification).toMatchObject({ label: null, confidence: 0, category: 'General', reasoning: 'No candidate sentiment fits the text', candidate: null });
  });

  it('offers sentiments for sentiment and topics plus prompt sections for topic', () => {
    expect(candidatesFor('sentiment', PROMPTS).map((c) => c.label)).toEqual(['positive', 'negative', 'neutral', 'mixed']);
    expect(candidatesFor('topic', PROMPTS).map((c) => c.label)).toEqual(['finance', 'legal', 'human resources', 'technology', 'healthcare', 'sales and marketing', 'operations']);
  });

  it('reports a built-in document type, not the prompt title, when a stored prompt wins phase 1', async () => {
    const { llm } = fakeLlm([
      { document_type: 'Invoice data extraction', section: 'Finance', category: 'Finance', key_features: ['invoice'], confidence: 0.88, reasoning: 'fits the prompt' },
      { prompt_id: 11, prompt_title: 'Invoice data extraction', match_confidence: 0.88, match_reasoning: 'same' },
    ]);
    const out = await classifyDocument(llm, { text: TEXT, prompts: PROMPTS });
    expect(out.result).toMatchObject({
      document_type: 'invoice',
      classification: { type: 'invoice', category: 'Finance', confidence: 0.88 },
      category: 'Finance',
      matched_prompt_id: 11,
    });
  });

  it('reports no document type when the winning prompt names none of the built-in types', async () => {
    const lading = { id: 21, title: 'Bill of lading', section: 'Logistics', description: 'Shipper, consignee, vessel, ports and cargo weight' };
    const { llm } = fakeLlm([{ document_type: 'Bill of lading', section: 'Logistics', confidence: 0.9, reasoning: 'fits the prompt' }]);
    const { classification } = await classifyText(llm, { text: 'BILL OF LADING', candidates: candidatesFor('document_type', [lading]) });
    expect(classification).toMatchObject({ label: null, confidence: 0, category: 'Logistics', candidate: null });
    // Topics may still name a prompt's section: only document types are mapped.
    const topic = fakeLlm([{ document_type: 'Logistics', confidence: 0.8 }]);
    expect((await classifyText(topic.llm, { text: 'x', candidates: candidatesFor('topic', [lading]), type: 'topic' })).classification.label).toBe('Logistics');
  });

  it('maps a prompt to the built-in type its title names first, then its description', () => {
    const type = (title: string, section: string | null, description: string) => documentTypeOfPrompt(promptCandidate({ id: 1, title, section, description }))?.label ?? null;
    expect(type('Supplier invoices', 'Finance', 'vendor, tax and amount due')).toBe('invoice');
    expect(type('Employment contract review', 'Human Resources', 'Parties, salary and notice period')).toBe('contract');
    expect(type('Acme monthly', null, 'Totals of the bank statements of Acme')).toBe('bank statement');
    expect(type('Invoice checks', null, 'Compare the invoice with the purchase order')).toBe('invoice');
    expect(type('Identity checks', null, 'Passport fields')).toBe('identity document');
    expect(type('Warehouse facts', 'Operations', 'Pulls the dates and counts')).toBe(null);
    expect(type('Bill of lading', 'Logistics', 'Shipper, consignee, vessel')).toBe(null);
  });
});
