/**
 * Personal data is redacted before an audit row is stored (spec 2.19): the
 * values of keys that name it are replaced whole, and e-mail addresses, IP
 * addresses, phone-like and card-like digit runs inside any other string are
 * masked. Details are meant to hold ids, counts and reasons; this is the net
 * under a careless caller, not a licence to pass raw input.
 */
const PERSONAL_KEYS =
  /^(e-?mail|identifier|username|user_?name|full_?name|first_?name|last_?name|password|passcode|code|token|jwt|secret|api_?key|authorization|cookie|ip|ip_?address|phone|address)$/i;

const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g;
const IPV4 = /\b(?:\d{1,3}\.){3}\d{1,3}\b/g;
/**
 * Seven or more digits, possibly split by spaces, dots, dashes or parentheses
 * (phone, card, account numbers), standing alone: digits inside a word (a
 * UUID, a hex hash) are part of an identifier, not a number.
 */
const DIGIT_RUN = /(?<![A-Za-z0-9])\+?\(?\d(?:[\s().-]{0,2}\d){6,}(?![A-Za-z0-9])/g;
/** A date or timestamp, or a UUID (an id we issue), is kept as it is: either can hold a digit run. */
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

const MAX_DEPTH = 6;
const MAX_STRING = 500;

export const REDACTED = '[redacted]';

/** jsonb refuses NUL and unpaired surrogates, and one such row would fail its whole batch; they are dropped and replaced. */
const NUL = /\u0000/g;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function storable(value: string): string {
  return value.replace(NUL, '').replace(LONE_SURROGATE, '\ufffd');
}

function redactString(raw: string): string {
  const value = storable(raw);
  if (ISO_DATE.test(value) || UUID.test(value)) return value;
  const masked = value.replace(EMAIL, '[email]').replace(IPV4, '[ip]').replace(DIGIT_RUN, '[number]');
  return masked.length > MAX_STRING ? `${masked.slice(0, MAX_STRING)}…` : masked;
}

function redactValue(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return redactString(value);
  if (value === null || typeof value !== 'object') return typeof value === 'number' || typeof value === 'boolean' ? value : undefined;
  if (depth >= MAX_DEPTH) return REDACTED;
  if (Array.isArray(value)) return value.map((v) => redactValue(v, depth + 1));
  if (value instanceof Date) return value.toISOString();
  const out: Record<string, unknown> = {};
  for (const [raw, v] of Object.entries(value)) {
    const key = storable(raw);
    if (key === '__proto__' || key === 'constructor') continue;
    const redacted = PERSONAL_KEYS.test(key) ? REDACTED : redactValue(v, depth + 1);
    if (redacted !== undefined) out[key] = redacted;
  }
  return out;
}

/** A copy of `details` fit for the audit log. */
export function redactDetails(details: Readonly<Record<string, unknown>> | undefined): Record<string, unknown> {
  if (!details) return {};
  return redactValue(details, 0) as Record<string, unknown>;
}
