import { fillExampleOutput, jsonObjectFrom, renderRtioMessages, rtioFromClassification, toRtioPrompt, type RtioPrompt } from './index';

const invoicePrompt: RtioPrompt = {
  roles: [
    { role: 'system', prompt: 'You are an expert at extracting invoice data.' },
    { role: 'user', prompt: 'Extract the invoice fields.' },
  ],
  tasks: ['Find the invoice number', '  ', 'Find the total'],
  instructions: ['Use null when absent'],
  outputFormat: 'json',
  exampleOutput: { invoice_number: 'INV-1', total_amount: 0 },
};

describe('renderRtioMessages', () => {
  it('puts roles, numbered tasks, instructions and the JSON example in the system message and the document in the user message', () => {
    const messages = renderRtioMessages(invoicePrompt, { documentText: 'Invoice No: INV-77\nTotal: 12.00' });
    expect(messages).toHaveLength(2);
    const [system, user] = messages;
    expect(system?.role).toBe('system');
    expect(system?.content).toContain('You are an expert at extracting invoice data.');
    expect(system?.content).toContain('Tasks:\n1. Find the invoice number\n2. Find the total');
    expect(system?.content).toContain('Instructions:\n- Use null when absent');
    expect(system?.content).toContain('Output format: JSON');
    expect(system?.content).toContain(JSON.stringify({ invoice_number: 'INV-1', total_amount: 0 }, null, 2));
    expect(user).toEqual({ role: 'user', content: 'Extract the invoice fields.\n\nDocument:\n<document>\nInvoice No: INV-77\nTotal: 12.00\n</document>' });
  });

  it('asks for plain text without an example when the format is text, and uses a default system role', () => {
    const [system, user] = renderRtioMessages({ roles: [], tasks: ['Summarise'], instructions: [], outputFormat: 'text', exampleOutput: { a: 1 } }, { documentText: 'Body' });
    expect(system?.content.startsWith('You are a careful document assistant.')).toBe(true);
    expect(system?.content).toContain('Output format: plain text.');
    expect(system?.content).not.toContain('"a"');
    expect(user?.content).toBe('Document:\n<document>\nBody\n</document>');
  });

  it('asks for JSON without an example when there is none', () => {
    const [system] = renderRtioMessages({ ...invoicePrompt, exampleOutput: null }, { documentText: '' });
    expect(system?.content).toContain('Respond with a single JSON object');
    expect(system?.content).not.toContain('Example output');
  });

  it('places extra context before the document, cuts long documents visibly, and never sends an empty user message', () => {
    const [, user] = renderRtioMessages({ ...invoicePrompt, roles: [] }, { documentText: 'abcdefghij', extraContext: 'Question: what?', maxDocumentChars: 4 });
    expect(user?.content).toBe('Context:\nQuestion: what?\n\nDocument:\n<document>\nabcd\n[document truncated: the first 4 of 10 characters are shown]\n</document>');
    const [, empty] = renderRtioMessages({ ...invoicePrompt, roles: [] }, { documentText: '   ' });
    expect(empty?.content).toBe('Carry out the tasks above.');
  });
});

describe('rtioFromClassification', () => {
  it('builds an invoice extraction prompt with the template fields and the extra key features', () => {
    const draft = rtioFromClassification({ document_type: 'Invoice', category: 'Finance', key_features: ['invoice number', 'IBAN', 'payment terms'], confidence: 0.92 });
    expect(draft.title).toBe('Invoice Extraction');
    expect(draft.section).toBe('Finance');
    expect(draft.type).toBe('extraction');
    expect(draft.level).toBe('user');
    expect(draft.version).toBe('1.0.0');
    expect(draft.outputFormat).toBe('json');
    expect(draft.exampleOutput['document_type']).toBe('invoice');
    expect(draft.exampleOutput['invoice_number']).toBe('INV-0001');
    expect(draft.exampleOutput['total_amount']).toBe(120);
    // "invoice number" is covered by the template; the others become fields of their own.
    expect(Object.keys(draft.exampleOutput).filter((k) => k.includes('invoice_number'))).toEqual(['invoice_number']);
    expect(draft.exampleOutput['iban']).toBe('');
    expect(draft.exampleOutput['payment_terms']).toBe('');
    expect(draft.description).toContain('confidence 0.92');
    expect(draft.roles.map((r) => r.role)).toEqual(['system', 'user']);
    expect(draft.tasks[0]).toContain('invoice number');
    expect(draft.tasks.some((t) => t.includes('IBAN'))).toBe(true);
  });

  it('recognises a type named inside a longer label and falls back to a generic shape for unknown types', () => {
    expect(rtioFromClassification({ document_type: 'tax_invoice', category: null }).exampleOutput).toHaveProperty('vendor_name');
    expect(rtioFromClassification({ document_type: 'purchase order' }).exampleOutput).toHaveProperty('order_number');
    const unknown = rtioFromClassification({ document_type: 'Shipping Manifest', category: 'Logistics', key_features: ['container count', 'departure date', 'cargo items'] });
    expect(unknown.title).toBe('Shipping Manifest Extraction');
    expect(unknown.section).toBe('Logistics');
    expect(unknown.exampleOutput).toEqual({
      document_type: 'shipping manifest',
      document_title: 'Title of the document',
      document_date: '2024-01-31',
      key_entities: ['Acme Corp'],
      container_count: 0,
      departure_date: '2024-01-31',
      cargo_items: [],
    });
    expect(rtioFromClassification({ document_type: 'contract' }).section).toBe('Legal');
  });

  it('renders into messages the local engine can read as an extraction with a JSON shape', () => {
    const [system] = renderRtioMessages(rtioFromClassification({ document_type: 'receipt' }), { documentText: 'Total 3.00' });
    // The only task verb is "extract", and the first JSON object is the example output.
    expect(system?.content).toMatch(/\bextracting\b/);
    expect(system?.content.search(/classif|summar/i)).toBe(-1);
    expect(system?.content).toContain('"merchant_name": "Corner Store"');
  });
});

describe('fillExampleOutput', () => {
  const example = { number: 'INV-1', total: 0, items: [{ a: 1 }], party: { name: 'X', city: 'Y' }, note: 'n' };

  it('takes usable values of the same kind and keeps the example elsewhere', () => {
    const filled = fillExampleOutput(example, { number: 'INV-77', total: 12.5, items: [], party: { name: 'Acme', city: null }, note: { nested: true }, extra: 'dropped' });
    expect(filled.output).toEqual({ number: 'INV-77', total: 12.5, items: [{ a: 1 }], party: { name: 'Acme', city: 'Y' }, note: 'n' });
    expect(filled.filled).toBe(3);
    expect(filled.total).toBe(5);
  });

  it('fills nothing from a non-object answer or empty strings', () => {
    expect(fillExampleOutput(example, 'text').filled).toBe(0);
    expect(fillExampleOutput(example, { number: '  ' }).output['number']).toBe('INV-1');
  });
});

describe('jsonObjectFrom', () => {
  it('reads objects, fenced JSON and JSON inside prose', () => {
    expect(jsonObjectFrom({ a: 1 })).toEqual({ a: 1 });
    expect(jsonObjectFrom('Here:\n```json\n{"a": 2}\n```')).toEqual({ a: 2 });
    expect(jsonObjectFrom('The answer is {"a": 3}.')).toEqual({ a: 3 });
    expect(jsonObjectFrom('no json')).toBeUndefined();
    expect(jsonObjectFrom('[1,2]')).toBeUndefined();
    expect(jsonObjectFrom(7)).toBeUndefined();
  });
});

describe('toRtioPrompt', () => {
  it('reads both spellings and drops malformed entries', () => {
    expect(
      toRtioPrompt({ roles: [{ role: 'system', prompt: 'S' }, { role: 'tool', prompt: 'x' }, 'bad'], tasks: ['T', 3], instructions: 'I', output_format: 'json', example_output: { k: 1 } }),
    ).toEqual({ roles: [{ role: 'system', prompt: 'S' }], tasks: ['T'], instructions: ['I'], outputFormat: 'json', exampleOutput: { k: 1 } });
    expect(toRtioPrompt({ tasks: ['T'], exampleOutput: { k: 1 } })?.outputFormat).toBe('json');
    expect(toRtioPrompt({ tasks: ['T'] })?.outputFormat).toBe('text');
    expect(toRtioPrompt({ title: 'nothing to render' })).toBeUndefined();
    expect(toRtioPrompt(null)).toBeUndefined();
  });
});
