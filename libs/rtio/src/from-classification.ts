import type { ClassificationResult, RtioPromptDraft } from './types';

/** A known document type: the section it belongs to and the fields worth extracting, with example values. */
interface TypeTemplate {
  /** Lowercase words that name the type in a classifier's output (`invoice`, `tax invoice`, ...). */
  names: string[];
  section: string;
  fields: Record<string, unknown>;
}

const LINE_ITEM = { description: 'Consulting services', quantity: 1, unit_price: 100.0, amount: 100.0 };

const TEMPLATES: TypeTemplate[] = [
  {
    names: ['invoice', 'bill', 'tax invoice'],
    section: 'Finance',
    fields: {
      invoice_number: 'INV-0001',
      invoice_date: '2024-01-31',
      due_date: '2024-02-29',
      vendor_name: 'Acme Corp',
      customer_name: 'Globex Ltd',
      subtotal: 100.0,
      tax_amount: 20.0,
      total_amount: 120.0,
      currency: 'USD',
      line_items: [LINE_ITEM],
    },
  },
  {
    names: ['receipt'],
    section: 'Finance',
    fields: { merchant_name: 'Corner Store', transaction_date: '2024-01-31', total_amount: 12.5, tax_amount: 1.25, currency: 'USD', payment_method: 'card', items: [LINE_ITEM] },
  },
  {
    names: ['purchase order', 'po'],
    section: 'Procurement',
    fields: {
      order_number: 'PO-0001',
      order_date: '2024-01-31',
      supplier_name: 'Acme Corp',
      buyer_name: 'Globex Ltd',
      delivery_date: '2024-02-15',
      total_amount: 120.0,
      currency: 'USD',
      line_items: [LINE_ITEM],
    },
  },
  {
    names: ['bank statement', 'statement', 'account statement'],
    section: 'Finance',
    fields: {
      account_holder: 'Jane Doe',
      account_number: '12345678',
      period_start: '2024-01-01',
      period_end: '2024-01-31',
      opening_balance: 1000.0,
      closing_balance: 1200.0,
      currency: 'USD',
      transactions: [{ date: '2024-01-15', description: 'Salary', amount: 200.0 }],
    },
  },
  {
    names: ['contract', 'agreement', 'nda', 'non-disclosure agreement', 'lease', 'employment contract'],
    section: 'Legal',
    fields: {
      contract_title: 'Services Agreement',
      parties: [{ name: 'Acme Corp', role: 'Provider' }],
      effective_date: '2024-01-01',
      termination_date: '2025-01-01',
      payment_terms: 'Net 30',
      governing_law: 'State of New York',
      key_obligations: ['Deliver the services described in Schedule A'],
      renewal_terms: 'Renews yearly unless terminated with 30 days notice',
    },
  },
  {
    names: ['resume', 'cv', 'curriculum vitae'],
    section: 'Human Resources',
    fields: {
      candidate_name: 'Jane Doe',
      email: 'jane.doe@example.com',
      phone: '+1 555 0100',
      skills: ['Project management'],
      experience: [{ employer: 'Acme Corp', title: 'Engineer', start_date: '2020-01', end_date: '2023-12' }],
      education: [{ institution: 'State University', degree: 'BSc Computer Science', year: '2019' }],
    },
  },
  {
    names: ['report', 'research report', 'financial report', 'annual report'],
    section: 'Reports',
    fields: { report_title: 'Quarterly Report', report_date: '2024-03-31', author: 'Jane Doe', key_findings: ['Revenue grew 10%'], recommendations: ['Expand to new markets'] },
  },
  {
    names: ['letter', 'correspondence', 'email', 'memo', 'memorandum'],
    section: 'Correspondence',
    fields: { sender: 'Jane Doe', recipient: 'John Smith', date: '2024-01-31', subject: 'Project update', key_points: ['The project is on schedule'], action_items: ['Reply by Friday'] },
  },
];

const GENERIC_FIELDS: Record<string, unknown> = { document_title: 'Title of the document', document_date: '2024-01-31', key_entities: ['Acme Corp'] };

const MAX_FEATURE_FIELDS = 12;

function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** `Invoice Number` → `invoice_number`; empty when nothing usable is left. */
export function fieldKey(feature: string): string {
  return words(feature).slice(0, 6).join('_').slice(0, 60);
}

function titleCase(text: string): string {
  return text
    .trim()
    .replace(/[_-]+/g, ' ')
    .replace(/\s+/g, ' ')
    .replace(/\b\p{Ll}/gu, (c) => c.toUpperCase());
}

function templateFor(documentType: string): TypeTemplate | undefined {
  const type = words(documentType).join(' ');
  if (!type) return undefined;
  // An exact name first ("purchase order" before "order"), then a name inside the type ("tax invoice", "invoice_document").
  return TEMPLATES.find((t) => t.names.includes(type)) ?? TEMPLATES.find((t) => t.names.some((n) => n.length > 2 && ` ${type} `.includes(` ${n} `)));
}

/** An example value for a feature that names a field: dates, amounts, lists and text are told apart by their words. */
function exampleValueFor(key: string): unknown {
  const w = key.split('_');
  const has = (...xs: string[]) => xs.some((x) => w.includes(x));
  if (has('date', 'dated', 'deadline', 'dob')) return '2024-01-31';
  if (has('amount', 'total', 'subtotal', 'price', 'cost', 'balance', 'tax', 'fee', 'salary', 'rate')) return 0.0;
  if (has('items', 'lines', 'entries', 'parties', 'list', 'obligations', 'transactions', 'skills')) return [];
  if (has('email')) return 'name@example.com';
  if (has('count', 'quantity')) return 0;
  return '';
}

/** Whether a feature is already covered by a template field (every word of the shorter one is in the other). */
function covered(key: string, fields: Record<string, unknown>): boolean {
  const kw = key.split('_');
  return Object.keys(fields).some((f) => {
    const fw = f.split('_');
    const [short, long] = kw.length <= fw.length ? [kw, fw] : [fw, kw];
    return short.every((x) => long.includes(x));
  });
}

function describeList(items: string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1] ?? ''}`;
}

function clamp01(n: number | null | undefined): number | undefined {
  if (typeof n !== 'number' || !Number.isFinite(n)) return undefined;
  return Math.min(1, Math.max(0, n));
}

/**
 * An extraction prompt for documents like the classified one: the fields of
 * a known type (invoice, receipt, purchase order, statement, contract, resume,
 * report, letter) plus one field per key feature the classifier named, an
 * example output holding each field, and tasks and instructions that ask for
 * exactly those fields. Deterministic and complete on its own: an LLM may
 * fill the example output with the document's values, nothing more is needed.
 */
export function rtioFromClassification(classification: ClassificationResult): RtioPromptDraft {
  const documentType = classification.document_type.trim() || 'document';
  const typeLabel = titleCase(documentType);
  const template = templateFor(documentType);
  const category = classification.category?.trim() || template?.section || 'General';
  const features = (classification.key_features ?? []).map((f) => f.trim()).filter(Boolean);

  const fields: Record<string, unknown> = { ...(template?.fields ?? GENERIC_FIELDS) };
  let added = 0;
  for (const feature of features) {
    const key = fieldKey(feature);
    if (!key || key in fields || covered(key, fields) || added >= MAX_FEATURE_FIELDS) continue;
    fields[key] = exampleValueFor(key);
    added++;
  }
  const exampleOutput: Record<string, unknown> = { document_type: documentType.toLowerCase(), ...fields };
  const fieldNames = Object.keys(fields).map((k) => k.replace(/_/g, ' '));
  const lowerType = documentType.toLowerCase();
  const confidence = clamp01(classification.confidence);

  return {
    title: `${typeLabel} Extraction`,
    description: [
      `Extracts ${describeList(fieldNames)} from ${lowerType} documents (${category}).`,
      `Generated from a classification${confidence !== undefined ? ` with confidence ${confidence.toFixed(2)}` : ''}${features.length ? `; key features: ${features.slice(0, 8).join(', ')}` : ''}.`,
    ].join(' '),
    section: category,
    type: 'extraction',
    roles: [
      {
        role: 'system',
        prompt: `You are an expert at extracting structured data from ${category.toLowerCase()} documents, in particular ${lowerType} documents. You report exactly what the document says and never invent values.`,
      },
      { role: 'user', prompt: `Extract the fields listed in the tasks from the ${lowerType} below.` },
    ],
    tasks: [
      `Read the ${lowerType} and find the values of these fields: ${describeList(fieldNames)}.`,
      ...(features.length ? [`Pay particular attention to: ${features.slice(0, 8).join('; ')}.`] : []),
      'Fill in every key of the example output with the value found in the document.',
    ],
    instructions: [
      'Copy names, numbers and identifiers exactly as written in the document.',
      'Write dates as YYYY-MM-DD.',
      'Write amounts as plain numbers without currency symbols or thousands separators; put the currency code in its own field when there is one.',
      'Use null for a value the document does not contain; never guess.',
      'Return one item per row for lists such as line items, keeping the document order.',
    ],
    outputFormat: 'json',
    exampleOutput,
    level: 'user',
    version: '1.0.0',
  };
}
