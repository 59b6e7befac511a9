/** What a text literally contains: dates, amounts, emails, phone numbers, reference numbers, `label: value` lines. */

export interface Found<T> {
  value: T;
  raw: string;
  /** Index of the line the value is on. */
  line: number;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const MONTH = '(Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)';

function iso(y: number, m: number, d: number): string | undefined {
  if (m < 1 || m > 12 || d < 1 || d > 31) return undefined;
  const date = new Date(Date.UTC(y, m - 1, d));
  if (date.getUTCMonth() !== m - 1) return undefined;
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

function monthIndex(name: string): number {
  return MONTHS.indexOf(name.slice(0, 3).toLowerCase()) + 1;
}

function fullYear(y: string): number {
  const n = Number(y);
  return y.length === 2 ? (n < 70 ? 2000 + n : 1900 + n) : n;
}

const DATE_PATTERNS: { re: RegExp; toIso: (m: RegExpExecArray) => string | undefined }[] = [
  { re: /\b(\d{4})-(\d{1,2})-(\d{1,2})\b/g, toIso: (m) => iso(Number(m[1]), Number(m[2]), Number(m[3])) },
  { re: new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+${MONTH}\\.?,?\\s+(\\d{4})\\b`, 'gi'), toIso: (m) => iso(Number(m[3]), monthIndex(String(m[2])), Number(m[1])) },
  { re: new RegExp(`\\b${MONTH}\\.?\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(\\d{4})\\b`, 'gi'), toIso: (m) => iso(Number(m[3]), monthIndex(String(m[1])), Number(m[2])) },
  {
    // Numeric day/month order is ambiguous unless one part is above 12; ambiguous dates keep their literal form.
    re: /\b(\d{1,2})[/.](\d{1,2})[/.](\d{4}|\d{2})\b/g,
    toIso: (m) => {
      const a = Number(m[1]);
      const b = Number(m[2]);
      const y = fullYear(String(m[3]));
      if (a > 12) return iso(y, b, a);
      if (b > 12) return iso(y, a, b);
      return undefined;
    },
  },
];

function lineOf(text: string, index: number): number {
  let n = 0;
  for (let i = 0; i < index; i++) if (text.charCodeAt(i) === 10) n++;
  return n;
}

function collect<T>(text: string, re: RegExp, map: (m: RegExpExecArray) => T | undefined): Found<T>[] {
  const out: Found<T>[] = [];
  for (const m of text.matchAll(re)) {
    const value = map(m as RegExpExecArray);
    if (value !== undefined) out.push({ value, raw: m[0], line: lineOf(text, m.index ?? 0) });
  }
  return out;
}

/** Dates as ISO `YYYY-MM-DD` when unambiguous, else as written; in order of appearance. */
export function findDates(text: string): Found<string>[] {
  const all: (Found<string> & { at: number })[] = [];
  const taken: [number, number][] = [];
  for (const { re, toIso } of DATE_PATTERNS) {
    for (const m of text.matchAll(re)) {
      const at = m.index ?? 0;
      const end = at + m[0].length;
      if (taken.some(([s, e]) => at < e && end > s)) continue;
      taken.push([at, end]);
      all.push({ value: toIso(m as RegExpExecArray) ?? m[0], raw: m[0], line: lineOf(text, at), at });
    }
  }
  return all.sort((a, b) => a.at - b.at).map(({ value, raw, line }) => ({ value, raw, line }));
}

export function findEmails(text: string): Found<string>[] {
  return collect(text, /\b[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}\b/g, (m) => m[0]);
}

/** Phone numbers need formatting characters (a plus prefix, parentheses or separators) and 7 to 15 digits. */
export function findPhones(text: string): Found<string>[] {
  const re = /(?<![\w.,])(?:\+\d{1,3}[\s.-]?)?(?:\(\d{1,5}\)[\s.-]?)?\d{2,5}(?:[\s.-]\d{2,5}){1,4}(?![\w.,]?\d)/g;
  const dates = findDates(text).map((d) => d.raw);
  return collect(text, re, (m) => {
    const raw = m[0].trim();
    const digits = raw.replace(/\D/g, '');
    if (digits.length < 7 || digits.length > 15) return undefined;
    if (!/[+()\s.-]/.test(raw)) return undefined;
    if (dates.some((d) => d.includes(raw) || raw.includes(d))) return undefined;
    if (/^\d{4}[-.]\d{1,2}[-.]\d{1,2}$/.test(raw)) return undefined;
    return raw;
  });
}

export const CURRENCY_SYMBOLS: Record<string, string> = { $: 'USD', '€': 'EUR', '£': 'GBP', '₹': 'INR', '¥': 'JPY' };
const CODES = 'USD|EUR|GBP|INR|JPY|CHF|CAD|AUD|NZD|SEK|NOK|DKK|CNY|SGD|HKD|ZAR|BRL|MXN';

export interface Amount {
  amount: number;
  currency: string | null;
}

/** The text with every date replaced by spaces, so that `15.03.2024` is not read as an amount. */
function maskDates(text: string): string {
  let out = text;
  for (const { re } of DATE_PATTERNS) out = out.replace(new RegExp(re.source, re.flags), (m) => ' '.repeat(m.length));
  return out;
}

function parseNumber(raw: string): number | undefined {
  let s = raw.replace(/[\s\u00a0\u202f']/g, '');
  if (/^-?\d{1,3}(\.\d{3})+(,\d{1,2})?$/.test(s) || /^-?\d+,\d{1,2}$/.test(s)) s = s.replace(/\./g, '').replace(',', '.');
  else s = s.replace(/,/g, '');
  const n = Number(s);
  return Number.isFinite(n) ? n : undefined;
}

/**
 * Money amounts: a number with a currency symbol or code, or with two
 * decimals (`1,250.00`, `1.250,00`). Bare integers are not amounts.
 */
export function findAmounts(text: string): Found<Amount>[] {
  const num = "(-?\\d{1,3}(?:[,.\u00a0\u202f']\\d{3})+(?:[.,]\\d{1,2})?|-?\\d+(?:[.,]\\d{1,2})?)";
  const re = new RegExp(`(?:(${CODES}|[$€£₹¥])\\s?${num}|${num}\\s?(${CODES}|[€£₹¥])?)(?![\\w%/-])`, 'g');
  return collect(maskDates(text), re, (m) => {
    const before = m[1];
    const after = m[4];
    const raw = m[2] ?? m[3] ?? '';
    const currencyRaw = before ?? after;
    const hasDecimals = /[.,]\d{2}$/.test(raw);
    if (!currencyRaw && !hasDecimals) return undefined;
    const amount = parseNumber(raw);
    if (amount === undefined) return undefined;
    const currency = currencyRaw ? (CURRENCY_SYMBOLS[currencyRaw] ?? currencyRaw.toUpperCase()) : null;
    return { amount, currency };
  });
}

/** `Invoice No: INV-2024-001`, `Order #A-77`, `PO Number 4410`: the value must contain a digit. */
export function findReference(text: string, kind: 'invoice' | 'order' | 'receipt' | 'reference' | 'account' | 'customer' | 'policy' | 'claim'): Found<string>[] {
  const prefix: Record<typeof kind, string> = {
    invoice: 'invoice',
    order: '(?:purchase\\s+order|order|p\\.?o\\.?)',
    receipt: 'receipt',
    reference: 'ref(?:erence)?\\.?',
    account: 'account|acct\\.?',
    customer: 'customer|client',
    policy: 'policy',
    claim: 'claim',
  };
  const re = new RegExp(`\\b(?:${prefix[kind]})\\s*(?:number|num\\.?|no\\.?|nr\\.?|id|#)?\\s*[:#.]?\\s*#?\\s*([A-Z0-9][A-Z0-9\\-/_.]*\\d[A-Z0-9\\-/_]*)`, 'gi');
  const dates = findDates(text).map((d) => d.raw);
  return collect(text, re, (m) => {
    const value = String(m[1]).replace(/[.]$/, '');
    if (dates.some((d) => d === value)) return undefined;
    return value;
  });
}

export interface LabelValue {
  label: string;
  value: string;
  line: number;
}

/** `Label: value` lines, and `Label<tab or 2+ spaces>value` table rows. */
export function findLabelValues(text: string): LabelValue[] {
  const out: LabelValue[] = [];
  text.split(/\r?\n/).forEach((rawLine, line) => {
    const l = rawLine.trim().replace(/^([-*•]|\d+[.)])\s+/, '');
    const colon = /^([\p{L}][\p{L}\p{N} #&/()'._-]{0,50}?)\s*[:：]\s*(\S.*?)\s*$/u.exec(l);
    const gap = colon ? null : /^([\p{L}][\p{L}\p{N} #&/()'._-]{0,50}?)(?:\t+|\s{2,})(\S.*?)\s*$/u.exec(l);
    const m = colon ?? gap;
    if (m?.[1] && m[2] && !/^\/\//.test(m[2])) out.push({ label: m[1].trim(), value: m[2], line });
  });
  return out;
}
