import { classify, parseCandidates } from './classify';
import { LocalEngine } from './local.provider';
import { summarize } from './summarize';
import { splitSentences } from './text';

/** The prompts every user sees from the start (the public API's seed migration). */
const SEEDED = [
  { prompt_id: 1, title: 'Invoice Extraction', section: 'Finance', description: 'Extracts the invoice number, dates, parties, amounts, currency and line items from an invoice.' },
  { prompt_id: 2, title: 'Receipt Extraction', section: 'Finance', description: 'Extracts the merchant, date, total, tax, currency and payment method from a receipt.' },
  { prompt_id: 3, title: 'Contract Summary', section: 'Legal', description: 'Summarises a contract: parties, term, payment terms, obligations, termination and governing law.' },
  { prompt_id: 4, title: 'Document Classification', section: 'General', description: 'Classifies a document into a type and a business category, with the features that decided it.' },
];
const OWN_INVOICE = { prompt_id: 7, title: 'My invoices', section: 'Finance', description: 'Invoice number, vendor, line items, VAT and amount due' };
const LADING_PROMPT = {
  prompt_id: 5,
  title: 'Bill of lading',
  section: 'Logistics',
  description: 'Shipper, consignee, vessel, port of loading, port of discharge, container numbers and cargo weight of a bill of lading',
};

const INVOICE = [
  'INVOICE INV-2024-0077',
  'From: Acme Office Supplies Ltd',
  'To: Globex Corporation',
  'Line items: 10 x Printer paper at 12.50 EUR',
  'VAT: 25.00 EUR',
  'Amount due: 150.00 EUR',
  'Please pay within 30 days.',
].join('\n');
const LADING = [
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
const RECIPE =
  'Grandma’s apple crumble. Preheat the oven to 180 degrees. Slice four apples and toss them with cinnamon. Cover them with a mix of butter, flour and oats, and bake for forty minutes until golden. Serve warm with custard.';

/** Phase 2 as @docflow/llm-client's matchPrompt asks it: the prompts as a JSON array, the document with its title. */
async function matchWithEngine(title: string, text: string, prompts: object[]): Promise<{ prompt_title: string | null; match_confidence: number }> {
  const instructions = [
    'Match the document below to the stored prompt written for documents like it.',
    'Candidate prompts (JSON: prompt_id, title, section, description):',
    JSON.stringify(prompts),
    'Respond with a single JSON object with exactly these keys (prompt_title null when no prompt fits):',
    JSON.stringify({ prompt_id: 0, prompt_title: 'title of the best prompt', match_confidence: 0.0, match_reasoning: 'one or two sentences' }),
  ].join('\n');
  const res = await new LocalEngine().chat({
    expectsJson: true,
    messages: [{ role: 'user', content: `${instructions}\n${text}` }],
    hints: { task: 'classify', instructions, document: `Title: ${title}\n\n${text}` },
  });
  return JSON.parse(res.content) as { prompt_title: string | null; match_confidence: number };
}

describe('prompt matching confidence is the similarity to the best prompt', () => {
  it('matches an invoice to the seeded invoice prompt at 0.7 or above', async () => {
    const match = await matchWithEngine('acme-invoice', INVOICE, SEEDED);
    expect(match.prompt_title).toBe('Invoice Extraction');
    expect(match.match_confidence).toBeGreaterThanOrEqual(0.7);
    expect(match.match_confidence).toBeLessThanOrEqual(1);
  });

  it('does not lower the confidence when a second invoice prompt exists: either fits on its own', async () => {
    const alone = classify(`Title: acme-invoice\n\n${INVOICE}`, parseCandidates(JSON.stringify([OWN_INVOICE])));
    const both = await matchWithEngine('acme-invoice', INVOICE, [...SEEDED, OWN_INVOICE]);
    expect(alone.confidence).toBeGreaterThanOrEqual(0.7);
    expect(['Invoice Extraction', 'My invoices']).toContain(both.prompt_title);
    expect(both.match_confidence).toBeGreaterThanOrEqual(0.7);
    const seededOnly = await matchWithEngine('acme-invoice', INVOICE, SEEDED);
    expect(both.match_confidence).toBeGreaterThanOrEqual(seededOnly.match_confidence);
  });

  it('keeps a bill of lading below 0.7 when no shipping prompt exists, and matches it when one does', async () => {
    const without = await matchWithEngine('msku-88231', LADING, SEEDED);
    expect(without.match_confidence).toBeLessThan(0.7);
    expect(without.match_confidence).toBeLessThan(0.3);
    const withPrompt = await matchWithEngine('msku-88231', LADING, [...SEEDED, LADING_PROMPT]);
    expect(withPrompt).toMatchObject({ prompt_title: 'Bill of lading' });
    expect(withPrompt.match_confidence).toBeGreaterThanOrEqual(0.7);
  });

  it('keeps a recipe below 0.7 against every prompt, with no label when nothing overlaps', async () => {
    const match = await matchWithEngine('apple-crumble', RECIPE, [...SEEDED, LADING_PROMPT, OWN_INVOICE]);
    expect(match.match_confidence).toBeLessThan(0.7);
    expect(classify(RECIPE, parseCandidates(JSON.stringify([...SEEDED, LADING_PROMPT])))).toMatchObject({ label: null, confidence: 0 });
  });

  it('does not match on a label word the body merely mentions', () => {
    const contract =
      'SERVICES AGREEMENT. This agreement is made between Acme Corp and Globex Ltd. The Provider will invoice the Client monthly; each invoice is payable within 30 days. ' +
      'The term is twelve months from the effective date. Either party may terminate with thirty days notice. Governed by the laws of New York.';
    const result = classify(contract, parseCandidates(JSON.stringify([SEEDED[0], SEEDED[1], LADING_PROMPT])));
    expect(result.label).toBe('Invoice Extraction');
    expect(result.confidence).toBeLessThan(0.7);
  });

  it('scores each candidate on its own and breaks a near-tie deterministically', () => {
    const twins = [
      { label: 'Invoice', description: 'invoice number, amount due, VAT' },
      { label: 'Invoices', description: 'invoice number, amount due, VAT' },
    ];
    const result = classify(INVOICE, twins);
    expect(result.label).toBe('Invoice');
    expect(result.scores[0]?.score).toBe(result.scores[1]?.score);
    expect(classify(INVOICE, [twins[0]!]).confidence).toBe(result.confidence);
  });
});

describe('sentences end at line breaks', () => {
  const REPORT = [
    'Incident report',
    'Incident date: 2024-05-14',
    'Estimated cost: 1,250.00 EUR',
    '',
    'A forklift struck a storage rack in aisle 12 during the night shift. Nobody was injured.',
    'Two pallets of printer paper were damaged and had to be',
    'written off after the inspection.',
    'Warehouse safety measures for the coming quarter',
    'The night shift will get a refresher on forklift safety before the end of the month.',
  ].join('\n');

  it('splits headings and label: value lines off, and joins only a sentence wrapped onto a lower-case line', () => {
    expect(splitSentences(REPORT).map((s) => s.text)).toEqual([
      'Incident report',
      'Incident date: 2024-05-14',
      'Estimated cost: 1,250.00 EUR',
      'A forklift struck a storage rack in aisle 12 during the night shift.',
      'Nobody was injured.',
      'Two pallets of printer paper were damaged and had to be written off after the inspection.',
      'Warehouse safety measures for the coming quarter',
      'The night shift will get a refresher on forklift safety before the end of the month.',
    ]);
  });

  it('never runs a label: value line into the next sentence of a summary', () => {
    const summary = summarize(REPORT, { style: 'brief', maxWords: 40 });
    expect(summary.text).not.toMatch(/EUR A /);
    for (const s of summary.sentences) expect(splitSentences(REPORT).map((x) => x.text)).toContain(s);
    for (const s of summary.sentences.slice(0, -1)) expect(summary.text).toContain(/[.!?]$/.test(s) ? `${s} ` : `${s}. `);
    expect(summary.text).not.toContain('Incident report');
  });

  it('summarises the incident report of the walkthrough without gluing the cost line to the next sentence', () => {
    const incident = [
      'Incident report',
      'Incident date: 2024-05-14',
      'Reported by: dana.jansen@example.com',
      'Site: Rotterdam warehouse',
      'Estimated cost: 1,250.00 EUR',
      '',
      'A forklift struck a storage rack in aisle 12 during the night shift. Nobody was injured.',
      'Two pallets of printer paper were damaged and had to be written off.',
      'The rack was inspected the next morning and found to be safe.',
      'The night shift will get a refresher on forklift safety before the end of the month.',
    ].join('\n');
    expect(summarize(incident, { style: 'brief', maxWords: 40 }).text).toBe(
      'Estimated cost: 1,250.00 EUR. A forklift struck a storage rack in aisle 12 during the night shift. The night shift will get a refresher on forklift safety before the end of the month.',
    );
  });
});
