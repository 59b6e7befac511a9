/** A label a classifier may choose, with the section it belongs to and words that describe it. */
export interface ClassCandidate {
  label: string;
  section: string | null;
  description: string;
  /** Set when the candidate is a stored prompt. */
  prompt_id?: number;
}

/** The document types every classification offers, besides the user's prompts (section names as in @docflow/rtio). */
export const BUILT_IN_DOCUMENT_TYPES: readonly ClassCandidate[] = [
  { label: 'invoice', section: 'Finance', description: 'bill for goods or services: invoice number, vendor, customer, line items, subtotal, tax, total amount due, due date, payment terms' },
  { label: 'receipt', section: 'Finance', description: 'proof of payment from a store or merchant: items bought, amount paid, cash or card, change, thank you for shopping' },
  { label: 'purchase order', section: 'Procurement', description: 'order placed with a supplier: PO number, ordered items, quantities, unit prices, delivery date, shipping address' },
  { label: 'bank statement', section: 'Finance', description: 'account statement from a bank: account number, opening balance, closing balance, deposits, withdrawals, transactions' },
  { label: 'contract', section: 'Legal', description: 'agreement between parties: terms and conditions, obligations, term, termination, governing law, signatures, clauses, effective date' },
  { label: 'resume', section: 'Human Resources', description: 'curriculum vitae of a candidate: work experience, education, skills, employment history, references' },
  { label: 'payslip', section: 'Human Resources', description: 'salary statement of an employee: gross pay, net pay, deductions, pay period, employer, tax withheld' },
  { label: 'report', section: 'Reports', description: 'report with findings: analysis, results, summary, conclusions, recommendations, quarterly or annual figures' },
  { label: 'letter', section: 'Correspondence', description: 'letter, memo or email: dear, sincerely, regards, subject, to, from, message' },
  { label: 'form', section: 'Administration', description: 'application or registration form: fields to fill in, applicant, signature, checkbox, submit' },
  { label: 'identity document', section: 'Identity', description: 'passport, identity card or driver licence: name, date of birth, nationality, document number, expiry date' },
  { label: 'medical record', section: 'Healthcare', description: 'patient record: diagnosis, treatment, medication, prescription, physician, hospital, symptoms' },
  { label: 'insurance document', section: 'Insurance', description: 'insurance policy or claim: policyholder, coverage, premium, claim number, deductible, insured' },
  { label: 'tax document', section: 'Tax', description: 'tax return or tax form: taxable income, tax year, deductions, taxpayer identification, refund' },
  { label: 'technical document', section: 'Technical', description: 'manual or specification: installation, configuration, requirements, system, version, instructions' },
];

export const SENTIMENT_CANDIDATES: readonly ClassCandidate[] = [
  { label: 'positive', section: null, description: 'good great excellent happy pleased satisfied delighted thank thanks love wonderful recommend success' },
  { label: 'negative', section: null, description: 'bad poor terrible unhappy disappointed angry complaint problem issue failure refund broken worst' },
  { label: 'neutral', section: null, description: 'information notice update report statement record schedule details factual' },
  { label: 'mixed', section: null, description: 'however but although while mixed some good some bad partly' },
];

export const TOPIC_CANDIDATES: readonly ClassCandidate[] = [
  { label: 'finance', section: 'Finance', description: 'money payment invoice budget revenue cost price account bank tax' },
  { label: 'legal', section: 'Legal', description: 'contract agreement law court clause liability compliance regulation' },
  { label: 'human resources', section: 'Human Resources', description: 'employee hiring salary candidate recruitment benefits leave payroll' },
  { label: 'technology', section: 'Technical', description: 'software system data computer network application server technical' },
  { label: 'healthcare', section: 'Healthcare', description: 'patient medical health hospital doctor treatment medication' },
  { label: 'sales and marketing', section: 'Sales', description: 'customer sales marketing campaign product market lead offer' },
  { label: 'operations', section: 'Operations', description: 'logistics delivery supplier order inventory shipping process' },
];

/** A stored prompt as a classification candidate: its title, section and description. */
export function promptCandidate(prompt: { id: number; title: string; section: string | null; description: string | null }): ClassCandidate {
  return { label: prompt.title, section: prompt.section, description: prompt.description ?? '', prompt_id: prompt.id };
}

/** Candidates in order, later ones with an already used label (case-insensitive) left out. */
export function uniqueCandidates(candidates: readonly ClassCandidate[]): ClassCandidate[] {
  const seen = new Set<string>();
  return candidates.filter((c) => {
    const key = c.label.trim().toLowerCase();
    if (!key || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Lower-case words with a plural s dropped: enough to find "invoice" in "Supplier invoices". */
function nameWords(text: string): string[] {
  return (text.toLowerCase().match(/\p{L}+/gu) ?? []).map((w) => (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w));
}

/**
 * The built-in document type a stored prompt is written for: the type whose
 * name (without the word "document") appears in the prompt's title, else in
 * its section or description; the most name words wins, a title hit before
 * the others, then list order. Null when no type is named ("Bill of lading").
 */
export function documentTypeOfPrompt(prompt: Pick<ClassCandidate, 'label' | 'section' | 'description'>): ClassCandidate | null {
  const title = new Set(nameWords(prompt.label));
  const rest = new Set(nameWords(`${prompt.section ?? ''} ${prompt.description}`));
  let best: { type: ClassCandidate; score: number } | null = null;
  for (const type of BUILT_IN_DOCUMENT_TYPES) {
    const words = nameWords(type.label).filter((w) => w !== 'document');
    if (words.length === 0) continue;
    const inTitle = words.every((w) => title.has(w));
    if (!inTitle && !words.every((w) => title.has(w) || rest.has(w))) continue;
    const score = words.length + (inTitle ? 100 : 0);
    if (!best || score > best.score) best = { type, score };
  }
  return best?.type ?? null;
}
