import { MigrationInterface, QueryRunner } from 'typeorm';

interface SeedPrompt {
  title: string;
  type: 'extraction' | 'classification' | 'summarization';
  section: string;
  description: string;
  roles: { role: 'system' | 'user'; prompt: string }[];
  tasks: string[];
  instructions: string[];
  output_format: 'json' | 'text';
  example_output: Record<string, unknown>;
}

const COMMON_RULES = ['Copy names, numbers and identifiers exactly as written in the document.', 'Use null for a value the document does not contain; never guess.'];

/**
 * Ownerless system prompts every user sees from the start. Frozen here (not
 * built by code that may change): a later edit or delete by an administrator
 * is never undone, since a migration runs once.
 */
const SEEDS: SeedPrompt[] = [
  {
    title: 'Invoice Extraction',
    type: 'extraction',
    section: 'Finance',
    description: 'Extracts the invoice number, dates, parties, amounts, currency and line items from an invoice.',
    roles: [
      { role: 'system', prompt: 'You are an expert at extracting structured data from invoices. You report exactly what the invoice says and never invent values.' },
      { role: 'user', prompt: 'Extract the invoice fields from the invoice below.' },
    ],
    tasks: ['Find the invoice number, invoice date and due date.', 'Find the vendor and the customer.', 'Find the subtotal, tax, total and currency, and every line item.'],
    instructions: [...COMMON_RULES, 'Write dates as YYYY-MM-DD.', 'Write amounts as plain numbers without currency symbols or thousands separators.'],
    output_format: 'json',
    example_output: {
      invoice_number: 'INV-0001',
      invoice_date: '2024-01-31',
      due_date: '2024-02-29',
      vendor_name: 'Acme Corp',
      customer_name: 'Globex Ltd',
      subtotal: 100.0,
      tax_amount: 20.0,
      total_amount: 120.0,
      currency: 'USD',
      line_items: [{ description: 'Consulting services', quantity: 1, unit_price: 100.0, amount: 100.0 }],
    },
  },
  {
    title: 'Receipt Extraction',
    type: 'extraction',
    section: 'Finance',
    description: 'Extracts the merchant, date, total, tax, currency and payment method from a receipt.',
    roles: [
      { role: 'system', prompt: 'You are an expert at extracting structured data from receipts. You report exactly what the receipt says and never invent values.' },
      { role: 'user', prompt: 'Extract the receipt fields from the receipt below.' },
    ],
    tasks: ['Find the merchant and the transaction date.', 'Find the total, the tax, the currency and the payment method.'],
    instructions: [...COMMON_RULES, 'Write dates as YYYY-MM-DD.', 'Write amounts as plain numbers.'],
    output_format: 'json',
    example_output: { merchant_name: 'Corner Store', transaction_date: '2024-01-31', total_amount: 12.5, tax_amount: 1.25, currency: 'USD', payment_method: 'card' },
  },
  {
    title: 'Contract Summary',
    type: 'summarization',
    section: 'Legal',
    description: 'Summarises a contract: parties, term, payment terms, obligations, termination and governing law.',
    roles: [
      { role: 'system', prompt: 'You are a legal analyst who summarizes contracts for busy readers, faithfully and without legal advice.' },
      { role: 'user', prompt: 'Summarize the contract below.' },
    ],
    tasks: [
      'Summarize the purpose of the contract in a few sentences.',
      'List the parties, the effective date, the term and the payment terms.',
      'List the main obligations, the termination conditions and the governing law.',
    ],
    instructions: [...COMMON_RULES, 'Keep the summary under 200 words.', 'Write dates as YYYY-MM-DD.'],
    output_format: 'json',
    example_output: {
      summary: 'A one-year services agreement between Acme Corp and Globex Ltd.',
      parties: ['Acme Corp', 'Globex Ltd'],
      effective_date: '2024-01-01',
      term: '12 months',
      payment_terms: 'Net 30',
      key_obligations: ['Acme delivers the services in Schedule A'],
      termination: 'Either party with 30 days written notice',
      governing_law: 'State of New York',
    },
  },
  {
    title: 'Document Classification',
    type: 'classification',
    section: 'General',
    description: 'Classifies a document into a type and a business category, with the features that decided it.',
    roles: [
      { role: 'system', prompt: 'You are a document analyst who classifies business documents by type and category.' },
      { role: 'user', prompt: 'Classify the document below.' },
    ],
    tasks: [
      'Decide the document type, one of: invoice, receipt, purchase order, bank statement, contract, resume, report, letter, other.',
      'Decide the business category (for example Finance, Legal, Human Resources, Procurement, Correspondence).',
      'List the key features of the text that support the decision.',
    ],
    instructions: ['Base the decision only on the document text.', 'Give a confidence between 0 and 1.', 'Use other when no type fits.'],
    output_format: 'json',
    example_output: { document_type: 'invoice', category: 'Finance', key_features: ['invoice number', 'total amount'], confidence: 0.9, reasoning: 'The text has an invoice number and a total.' },
  },
];

export class SeedSystemPrompts1764000000031 implements MigrationInterface {
  name = 'SeedSystemPrompts1764000000031';

  async up(q: QueryRunner): Promise<void> {
    for (const p of SEEDS) {
      await q.query(
        `INSERT INTO prompts (title, type, level, section, description, roles, tasks, instructions, output_format, example_output, version, owner_id)
         VALUES ($1, $2, 'system', $3, $4, $5::jsonb, $6::jsonb, $7::jsonb, $8, $9::jsonb, '1.0.0', NULL)`,
        [p.title, p.type, p.section, p.description, JSON.stringify(p.roles), JSON.stringify(p.tasks), JSON.stringify(p.instructions), p.output_format, JSON.stringify(p.example_output)],
      );
    }
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM prompts WHERE level = 'system' AND owner_id IS NULL AND title = ANY($1)`, [SEEDS.map((p) => p.title)]);
  }
}
