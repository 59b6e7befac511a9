import { isLeaf, jsonShapeFrom, Shape, ShapeLeaf } from './json-scan';
import { Amount, findAmounts, findDates, findEmails, findLabelValues, findPhones, findReference, Found, LabelValue } from './patterns';
import { stem } from './text';

const SYNONYMS: Record<string, string> = {
  no: 'number',
  num: 'number',
  nr: 'number',
  '#': 'number',
  amt: 'amount',
  qty: 'quantity',
  tel: 'phone',
  telephone: 'phone',
  mobile: 'phone',
  cell: 'phone',
  mail: 'email',
  e: 'email',
  addr: 'address',
  dob: 'birth',
  ref: 'reference',
  acct: 'account',
  po: 'order',
  purchase: 'order',
  grand: 'total',
  vat: 'tax',
  gst: 'tax',
  id: 'number',
  identifier: 'number',
};
const FILLER = new Set(['the', 'of', 'a', 'an', 'and', 'or', 'to', 'for', 'value']);

/** `invoiceNumber`, `invoice_number` and `Invoice No.` all become {invoice, number}. */
export function keyTokens(key: string): string[] {
  const spaced = key
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/#/g, ' # ')
    .replace(/e-mail/gi, 'email');
  return (spaced.toLowerCase().match(/[\p{L}\p{N}]+|#/gu) ?? [])
    .filter((t) => !FILLER.has(t))
    .map((t) => SYNONYMS[t] ?? t)
    .map(stem);
}

type KeyType = 'email' | 'phone' | 'date' | 'amount' | 'currency' | 'reference' | 'text';
const TYPE_WORDS: Record<Exclude<KeyType, 'text' | 'reference'>, string[]> = {
  email: ['email'],
  phone: ['phone', 'fax'],
  date: ['date', 'birth', 'deadline', 'dated'],
  amount: ['total', 'amount', 'sum', 'price', 'cost', 'balance', 'subtotal', 'tax', 'fee', 'paid', 'due', 'net', 'gross', 'salary', 'wage', 'rent', 'premium'],
  currency: ['currency'],
};
const REFERENCE_KINDS = ['invoice', 'order', 'receipt', 'reference', 'account', 'customer', 'policy', 'claim'] as const;

/** Words that name the document rather than which value of it is meant. */
const GENERIC_QUALIFIERS = ['invoice', 'issue', 'document', 'bill', 'order', 'receipt', 'statement'];

function keyType(tokens: string[]): KeyType {
  const has = (ws: string[]) => tokens.some((t) => ws.includes(t));
  if (has(TYPE_WORDS.email)) return 'email';
  if (has(TYPE_WORDS.phone)) return 'phone';
  if (has(TYPE_WORDS.currency)) return 'currency';
  if (has(TYPE_WORDS.date)) return 'date';
  if (tokens.includes('number') && tokens.some((t) => (REFERENCE_KINDS as readonly string[]).includes(t))) return 'reference';
  if (tokens.length === 1 && (REFERENCE_KINDS as readonly string[]).includes(tokens[0] ?? '') && tokens[0] !== 'customer' && tokens[0] !== 'account') return 'reference';
  if (has(TYPE_WORDS.amount)) return 'amount';
  return 'text';
}

function sameSet(a: string[], b: string[]): boolean {
  const sa = new Set(a);
  const sb = new Set(b);
  return sa.size === sb.size && [...sa].every((t) => sb.has(t));
}

export type FieldValue = string | number | null;

/** Everything found in one text, computed once and shared by all keys. */
class Evidence {
  readonly labels: (LabelValue & { tokens: string[] })[];
  readonly lines: string[];
  readonly dates: Found<string>[];
  readonly amounts: Found<Amount>[];
  readonly emails: Found<string>[];
  readonly phones: Found<string>[];

  constructor(readonly text: string) {
    this.labels = findLabelValues(text).map((lv) => ({ ...lv, tokens: keyTokens(lv.label) }));
    this.lines = text.split(/\r?\n/).map((l) => l.toLowerCase());
    this.dates = findDates(text);
    this.amounts = findAmounts(text);
    this.emails = findEmails(text);
    this.phones = findPhones(text);
  }

  lineHas(line: number, words: string[]): boolean {
    const tokens = keyTokens(this.lines[line] ?? '');
    return words.every((w) => tokens.includes(w));
  }
}

function typedValue(type: KeyType, raw: string, leaf: ShapeLeaf['leaf']): FieldValue {
  switch (type) {
    case 'email':
      return findEmails(raw)[0]?.value ?? null;
    case 'phone':
      return findPhones(raw)[0]?.value ?? raw;
    case 'date':
      return findDates(raw)[0]?.value ?? null;
    case 'amount': {
      const amount = findAmounts(raw)[0]?.value.amount;
      if (amount === undefined) return null;
      return leaf === 'string' ? raw : amount;
    }
    case 'currency':
      return findAmounts(raw)[0]?.value.currency ?? (raw.trim() || null);
    case 'reference':
    case 'text':
      return raw.trim() || null;
    default: {
      const unreachable: never = type;
      throw new Error(`unknown key type ${String(unreachable)}`);
    }
  }
}

function fromTypedSearch(ev: Evidence, type: KeyType, tokens: string[], leaf: ShapeLeaf['leaf']): FieldValue {
  const own: string[] = type === 'text' || type === 'reference' ? [] : TYPE_WORDS[type];
  const qualifiers = tokens.filter((t) => !own.includes(t) && t !== 'number' && !(type === 'amount' && GENERIC_QUALIFIERS.includes(t)));
  const nearQualifier = <T>(found: Found<T>[]): Found<T>[] => (qualifiers.length ? found.filter((f) => ev.lineHas(f.line, qualifiers)) : found);
  switch (type) {
    case 'email':
      return nearQualifier(ev.emails)[0]?.value ?? (qualifiers.length ? null : (ev.emails[0]?.value ?? null));
    case 'phone':
      return nearQualifier(ev.phones)[0]?.value ?? (qualifiers.length ? null : (ev.phones[0]?.value ?? null));
    case 'date': {
      const generic = qualifiers.every((q) => GENERIC_QUALIFIERS.includes(q));
      const near = nearQualifier(ev.dates)[0] ?? (generic ? ev.dates[0] : undefined);
      return near?.value ?? null;
    }
    case 'currency':
      return ev.amounts.find((a) => a.value.currency)?.value.currency ?? null;
    case 'amount': {
      const words = tokens.filter((t) => TYPE_WORDS.amount.includes(t) && t !== 'amount');
      const onLine = ev.amounts.filter((a) => {
        const lineTokens = keyTokens(ev.lines[a.line] ?? '');
        if (words.includes('total') && lineTokens.includes('subtotal')) return false;
        return (words.length ? words : ['amount']).every((w) => lineTokens.includes(w)) && qualifiers.every((q) => lineTokens.includes(q));
      });
      // The last matching line wins (a grand total follows the subtotals); with no line, a total is the largest amount.
      let pick = onLine[onLine.length - 1];
      if (!pick && qualifiers.length === 0 && (words.includes('total') || (tokens.length === 1 && tokens[0] === 'amount'))) {
        pick = [...ev.amounts].sort((a, b) => b.value.amount - a.value.amount)[0];
      }
      if (!pick) return null;
      return leaf === 'string' ? pick.raw.trim() : pick.value.amount;
    }
    case 'reference': {
      const kind = REFERENCE_KINDS.find((k) => tokens.includes(k)) ?? 'reference';
      return findReference(ev.text, kind)[0]?.value ?? null;
    }
    case 'text':
      return definedTerm(ev.text, tokens);
    default: {
      const unreachable: never = type;
      throw new Error(`unknown key type ${String(unreachable)}`);
    }
  }
}

/** A party named by a defined term: `Initech LLC ("Employer")` answers the key `employer`. */
function definedTerm(text: string, tokens: string[]): string | null {
  const name = "(?:[\\p{Lu}][\\p{L}\\p{N}&.'-]*,?(?:\\s+(?:of|and|for|de|the|&)\\s+|\\s+)){0,6}[\\p{Lu}][\\p{L}\\p{N}&.'-]*";
  const re = new RegExp(`(${name})\\s*\\(\\s*(?:the\\s+)?["“']([^"”')]{1,40})["”']\\s*\\)`, 'gu');
  for (const m of text.matchAll(re)) {
    if (m[1] && m[2] && sameSet(keyTokens(m[2]), tokens)) return m[1].trim();
  }
  return null;
}

/**
 * The value of one requested key, from what the text literally says:
 * a `label: value` line with the same words, then a typed search (emails,
 * phones, dates, amounts, reference numbers) near the key's other words,
 * then a `label: value` line that contains all the key's words. Else null.
 */
export function fillKey(ev: Evidence, key: string, leaf: ShapeLeaf['leaf'] = 'unknown', context: string[] = []): FieldValue {
  const tokens = [...context, ...keyTokens(key)];
  if (tokens.length === 0) return null;
  const type = keyType(tokens);
  const exact = ev.labels.find((lv) => sameSet(lv.tokens, tokens));
  if (exact) {
    const v = typedValue(type, exact.value, leaf);
    if (v !== null) return v;
  }
  const typed = fromTypedSearch(ev, type, tokens, leaf);
  if (typed !== null) return typed;
  const partial = ev.labels.find((lv) => tokens.every((t) => lv.tokens.includes(t)) && lv.tokens.length <= tokens.length + 2);
  if (partial) return typedValue(type, partial.value, leaf);
  // Inside a nested object, a typed value (an email, a date, ...) found without the parent's words still counts.
  return context.length && type !== 'text' ? fillKey(ev, key, leaf) : null;
}

export type Filled = { [key: string]: FieldValue | Filled };

function fillShape(ev: Evidence, shape: Shape, context: string[]): Filled {
  const out: Filled = {};
  for (const [key, sub] of Object.entries(shape)) {
    if (sub !== null && !isLeaf(sub)) out[key] = fillShape(ev, sub, [...context, ...keyTokens(key)]);
    else if (sub !== null && sub.leaf === 'array') out[key] = null;
    else out[key] = fillKey(ev, key, sub?.leaf ?? 'unknown', context);
  }
  return out;
}

const KEY_LIST_HEADER = /(field|key|propert|attribute|information|following|details|values|extract)/i;
/** For classification and summaries, only lines that describe the output ("JSON with fields: a, b"). */
const OUTPUT_KEYS_HEADER = /\b(json|fields?|keys|properties)\b/i;
const BULLET = /^\s*(?:[-*•]|\d+[.)])\s+(.+)$/;

function asKey(label: string): string {
  const trimmed = label.trim().replace(/^["'`]+|["'`]+$/g, '');
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(trimmed) ? trimmed : keyTokensRaw(trimmed).join('_');
}

function keyTokensRaw(label: string): string[] {
  return label.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/**
 * The keys a prompt asks for: the first JSON object in it (an example
 * output, nested objects kept), else a list after "fields:", "the following:"
 * and the like (inline, comma separated, or one bullet per key).
 */
export function requestedShape(instructions: string, options: { outputOnly?: boolean } = {}): Shape | undefined {
  const json = jsonShapeFrom(instructions);
  if (json) return json;
  const headerRe = options.outputOnly ? OUTPUT_KEYS_HEADER : KEY_LIST_HEADER;
  const lines = instructions.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const header = headerRe.exec(line);
    if (!header) continue;
    const after = line.slice(line.indexOf(':') + 1);
    if (line.includes(':') && after.trim()) {
      const keys = after
        .split(/\s*(?:,|;|\band\b)\s*/)
        .map((s) => s.replace(/\.$/, ''))
        .filter((s) => s && s.length <= 60)
        .map(asKey)
        .filter(Boolean);
      if (keys.length) return Object.fromEntries(keys.map((k) => [k, { leaf: 'unknown' } as ShapeLeaf]));
    }
    const keys: string[] = [];
    for (let j = i + 1; j < lines.length; j++) {
      const bullet = BULLET.exec(lines[j] ?? '');
      if (!bullet) {
        if (!(lines[j] ?? '').trim() && keys.length === 0) continue;
        break;
      }
      const label = String(bullet[1]).split(/\s*(?::|\s-\s|–|—|\()\s*/)[0] ?? '';
      if (label) keys.push(asKey(label));
    }
    if (keys.length) return Object.fromEntries(keys.filter(Boolean).map((k) => [k, { leaf: 'unknown' } as ShapeLeaf]));
  }
  return undefined;
}

/** With no requested keys: every `label: value` line, plus the typed values found. */
function everything(ev: Evidence): Filled {
  const out: Filled = {};
  for (const lv of ev.labels) {
    const key = keyTokensRaw(lv.label).join('_');
    if (key && !(key in out)) out[key] = lv.value;
  }
  const lists: [string, Found<string>[]][] = [
    ['emails', ev.emails],
    ['phone_numbers', ev.phones],
    ['dates', ev.dates],
  ];
  for (const [key, found] of lists) if (found.length && !(key in out)) out[key] = found.map((f) => f.value).join(', ');
  if (ev.amounts.length && !('amounts' in out)) out.amounts = ev.amounts.map((a) => `${a.value.amount}${a.value.currency ? ` ${a.value.currency}` : ''}`).join(', ');
  return out;
}

/** Fills the shape the instructions ask for from the document; unknown keys are null. */
export function extractFields(document: string, instructions: string): Filled {
  const ev = new Evidence(document);
  const shape = requestedShape(instructions);
  return shape ? fillShape(ev, shape, []) : everything(ev);
}

export { Evidence };
