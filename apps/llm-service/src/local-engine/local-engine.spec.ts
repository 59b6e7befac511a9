import { LocalEngine } from './local.provider';
import { classify, parseCandidates } from './classify';
import { extractFields } from './extract-fields';
import { hashedEmbedding, LOCAL_EMBEDDING_DIMENSIONS } from './embed';
import { summarize, summaryOptionsFrom } from './summarize';
import { planLocalTask } from './task';
import { splitSentences } from './text';

const ARTICLE = [
  'Solar power capacity grew faster than any other energy source last year, according to the International Energy Agency.',
  'The agency said that new solar installations added more electricity capacity than coal, gas and nuclear combined.',
  'Falling panel prices and government incentives drove most of the growth in solar power.',
  'Critics point out that grid storage has not kept pace with solar capacity, which limits how much solar power can be used at night.',
  'In a separate announcement, the city council approved a new bicycle lane on Main Street.',
  'The agency expects solar capacity to double again within five years if panel prices keep falling.',
].join(' ');

const INVOICE = `ACME Supplies Ltd.
Invoice No: INV-2024-0042
Invoice Date: March 5, 2024
Due Date: 2024-04-04
Bill To: Globex Corporation
Contact: billing@globex.example
Phone: +1 (555) 123-4567

Description            Qty    Unit price
Paper, A4 (box)         10       25.00
Toner cartridge          2      150.00

Subtotal: $550.00
Tax (10%): $55.00
Total Due: $605.00
Thank you for your business.`;

const CONTRACT = `EMPLOYMENT AGREEMENT

This Employment Agreement is entered into on January 15, 2024 between Initech LLC ("Employer") and John Smith ("Employee").
The Employee will serve as Senior Engineer. The annual salary is USD 120,000.00, paid monthly.
Either party may terminate this agreement with 30 days written notice.
Signed: John Smith, Bill Lumbergh`;

describe('summarisation', () => {
  it('picks real sentences of the text, the central ones first, in document order', () => {
    const summary = summarize(ARTICLE, { style: 'brief', maxWords: 80 });
    const source = splitSentences(ARTICLE).map((s) => s.text);
    expect(summary.sentences.length).toBeGreaterThan(0);
    expect(summary.sentences.length).toBeLessThanOrEqual(3);
    for (const s of summary.sentences) expect(source).toContain(s);
    expect(summary.sentences[0]).toBe(source[0]);
    expect(summary.text).not.toContain('bicycle');
    const positions = summary.sentences.map((s) => source.indexOf(s));
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(summary.wordCount).toBeLessThanOrEqual(80);
  });

  it('reads the style and word limit from the prompt, and bullets each sentence', () => {
    expect(summaryOptionsFrom('Summarize as bullet points, max 40 words')).toEqual({ style: 'bullet_points', maxWords: 40 });
    expect(summaryOptionsFrom('Give a detailed summary')).toEqual({ style: 'detailed', maxWords: 500 });
    expect(summaryOptionsFrom('Summarize this')).toEqual({ style: 'brief', maxWords: 500 });
    const bullets = summarize(ARTICLE, { style: 'bullet_points', maxWords: 40 });
    expect(bullets.text.split('\n').every((l) => l.startsWith('- '))).toBe(true);
    expect(bullets.wordCount).toBeLessThanOrEqual(40);
  });
});

describe('classification', () => {
  it('parses candidates from a bulleted list and picks the right label', () => {
    const prompt =
      'Classify the document into one of these categories:\n- Invoice: a bill requesting payment for goods, with totals and due dates\n- Resume: a curriculum vitae listing work experience and education\n- Contract: an agreement between parties with terms and signatures';
    const candidates = parseCandidates(prompt);
    expect(candidates.map((c) => c.label)).toEqual(['Invoice', 'Resume', 'Contract']);
    const result = classify(INVOICE, candidates);
    expect(result.label).toBe('Invoice');
    expect(result.confidence).toBeGreaterThan(0.5);
    expect(result.confidence).toBeLessThanOrEqual(1);
  });

  it('reads prompt titles and sections from a JSON array and an inline list', () => {
    const prompt =
      'Classify. Prompts: [{"title": "Employment Contract", "section": "HR", "description": "employment agreement salary employee employer"}, {"title": "Purchase Invoice", "section": "Finance", "description": "invoice payment total due tax"}]';
    const result = classify(INVOICE, parseCandidates(prompt));
    expect(result).toMatchObject({ label: 'Purchase Invoice', section: 'Finance' });
    expect(parseCandidates('Answer with one of: positive, negative or neutral').map((c) => c.label)).toEqual(['positive', 'negative', 'neutral']);
  });

  it('returns no label with confidence 0 when nothing overlaps', () => {
    expect(classify('zzz qqq', [{ label: 'Invoice' }, { label: 'Resume' }])).toMatchObject({ label: null, confidence: 0 });
  });
});

describe('extraction', () => {
  it('fills invoice number, date, total and email from an invoice and leaves unknown keys null', () => {
    const prompt = 'Extract the data as JSON: {"invoice_number": "", "invoice_date": "", "due_date": "", "total": 0, "email": "", "phone": "", "tax": 0, "purchase_order": ""}';
    expect(extractFields(INVOICE, prompt)).toEqual({
      invoice_number: 'INV-2024-0042',
      invoice_date: '2024-03-05',
      due_date: '2024-04-04',
      total: 605,
      email: 'billing@globex.example',
      phone: '+1 (555) 123-4567',
      tax: 55,
      purchase_order: null,
    });
  });

  it('takes keys from a bulleted field list and nested example objects', () => {
    expect(extractFields(INVOICE, 'Extract the following fields:\n- Invoice Number\n- Bill To\n- Shipping address')).toEqual({
      invoice_number: 'INV-2024-0042',
      bill_to: 'Globex Corporation',
      shipping_address: null,
    });
    expect(extractFields(INVOICE, 'Return JSON like {"customer": {"email": "x"}, "amounts": {"subtotal": 1, "total": 2}}')).toEqual({
      customer: { email: 'billing@globex.example' },
      amounts: { subtotal: 550, total: 605 },
    });
  });
});

describe('on a contract', () => {
  const engine = new LocalEngine();

  it('fills parties named by defined terms and a salary, and leaves what the text does not state null', async () => {
    const res = await engine.chat({
      expectsJson: true,
      messages: [{ role: 'user', content: `Extract the following information and return JSON:\n- employer\n- employee\n- salary\n- notice period\n\nDocument:\n${CONTRACT}` }],
    });
    expect(JSON.parse(res.content)).toEqual({ employer: 'Initech LLC', employee: 'John Smith', salary: 120000, notice_period: null });
  });

  it('answers a classification with the output fields the prompt names', async () => {
    const res = await engine.chat({
      expectsJson: true,
      messages: [
        {
          role: 'system',
          content:
            'Classify the document into one of the following document types:\n1. Invoice - bills, payment requests\n2. Employment Contract - employment agreements, offer letters\n3. Bank Statement - account statements\nRespond in JSON with fields: document_type, confidence.',
        },
        { role: 'user', content: CONTRACT },
      ],
    });
    const parsed = JSON.parse(res.content) as { document_type: string; confidence: number };
    expect(Object.keys(parsed)).toEqual(['document_type', 'confidence']);
    expect(parsed.document_type).toBe('Employment Contract');
    expect(parsed.confidence).toBeGreaterThan(0.5);
  });

  it('keeps to the number of bullet points asked for and skips headings', async () => {
    const res = await engine.chat({ messages: [{ role: 'user', content: `Please summarize the following text in 2 bullet points.\n\n${CONTRACT}` }] });
    const lines = res.content.split('\n');
    expect(lines).toHaveLength(2);
    for (const line of lines) {
      expect(line.startsWith('- ')).toBe(true);
      expect(CONTRACT).toContain(line.slice(2));
    }
    expect(res.content).not.toContain('EMPLOYMENT AGREEMENT');
  });
});

describe('task inference', () => {
  it('takes the earliest task verb, JSON without a verb as extraction, and chat otherwise', () => {
    const user = (content: string) => [{ role: 'user' as const, content }];
    expect(planLocalTask(user('Summarize this. Return JSON.\n\nSome text.'), undefined, true).task).toBe('summarize');
    expect(planLocalTask(user('Classify this document.\n\nSome text.'), undefined, false).task).toBe('classify');
    expect(planLocalTask(user('Return a JSON object with invoice_number.\n\nSome text.'), undefined, true).task).toBe('extract');
    expect(planLocalTask(user('What is the capital of France?'), undefined, false).task).toBe('chat');
    expect(planLocalTask(user('anything'), { task: 'summarize' }, false).task).toBe('summarize');
  });

  it('separates instructions from a document after a marker line', () => {
    const plan = planLocalTask([{ role: 'user', content: 'Extract the invoice number as JSON.\nDocument:\nInvoice No: 77-A' }], undefined, true);
    expect(plan).toMatchObject({ task: 'extract', document: 'Invoice No: 77-A' });
  });
});

describe('LocalEngine', () => {
  const engine = new LocalEngine();

  it('answers chat with sentences of the context and says what it is', async () => {
    const res = await engine.chat({
      messages: [
        { role: 'system', content: `Answer from this context: ${ARTICLE}` },
        { role: 'user', content: 'Why did solar panel prices matter?' },
      ],
    });
    expect(res.model).toBe('docflow-local-1');
    expect(res.content).toContain('local extractive engine');
    expect(res.content).toContain('Falling panel prices and government incentives drove most of the growth in solar power.');
    expect(res.usage.prompt_tokens).toBeGreaterThan(0);
  });

  it('produces the JSON shape a classification prompt asks for', async () => {
    const res = await engine.chat({
      expectsJson: true,
      messages: [
        { role: 'system', content: 'Classify the document. Categories:\n- Invoice\n- Resume\nReturn JSON {"prompt_title": "", "confidence": 0.0, "reason": ""}' },
        { role: 'user', content: INVOICE },
      ],
    });
    const parsed = JSON.parse(res.content) as Record<string, unknown>;
    expect(parsed.prompt_title).toBe('Invoice');
    expect(typeof parsed.confidence).toBe('number');
    expect(String(parsed.reason)).toContain('local extractive engine');
  });

  it('embeds deterministically into L2-normalised vectors of 256 dimensions', async () => {
    const { embeddings } = await engine.embed(['solar power capacity', 'solar power capacity', 'bicycle lane']);
    const [a, b, c] = embeddings;
    expect(a).toHaveLength(LOCAL_EMBEDDING_DIMENSIONS);
    expect(a).toEqual(b);
    const norm = Math.sqrt(a!.reduce((s, v) => s + v * v, 0));
    expect(norm).toBeCloseTo(1, 5);
    const dot = a!.reduce((s, v, i) => s + v * c![i]!, 0);
    expect(dot).toBeLessThan(0.5);
    expect(hashedEmbedding('')).toEqual(new Array(256).fill(0));
  });
});
