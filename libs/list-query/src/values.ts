/**
 * Shape checks and value casting shared by the parsers. Values arrive as qs
 * strings (or, for an already parsed object, as JSON-ish values); every cast
 * either yields a value PostgreSQL accepts for the field's column type or a
 * message for `details.errors`.
 */
import { isPlainObject } from '@docflow/service-kit';
import type { ResolvedField } from './spec';

export type Scalar = string | number | boolean;
export type CastResult = { ok: true; value: Scalar } | { ok: false; error: string };

const INT4_MIN = -2147483648;
const INT4_MAX = 2147483647;
const INTEGER = /^-?\d+$/;
const NUMBER = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;
const INDEX = /^(0|[1-9]\d*)$/;
/**
 * ISO 8601 date or date-time. The offset may start with a space: an unencoded
 * `+` in a URL arrives as a space, and nothing else could be meant there.
 */
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:([Zz])|([+\- ])(\d{2})(?::?(\d{2}))?)?)?$/;

/**
 * An array, or an "index object" (`{"0": .., "101": ..}`: what qs makes of
 * indices above its arrayLimit) in index order; undefined for anything else.
 */
export function asList(v: unknown): unknown[] | undefined {
  if (Array.isArray(v)) return v;
  if (!isPlainObject(v)) return undefined;
  const keys = Object.keys(v);
  if (keys.length === 0 || !keys.every((k) => INDEX.test(k) && k.length <= 15)) return undefined;
  return keys
    .map(Number)
    .sort((a, b) => a - b)
    .map((k) => v[String(k)]);
}

/** A short, quoted rendering of request input for error messages. */
export function show(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v.length > 60 ? `${v.slice(0, 60)}…` : v);
  if (v === null || typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return 'an array';
  return 'an object';
}

/** A strict integer: digits only (or a safe-integer number), nothing else. */
export function parseInteger(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isSafeInteger(v) ? v : undefined;
  if (typeof v !== 'string' || !INTEGER.test(v)) return undefined;
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** `true`/`false`/`1`/`0` (strings, booleans or numbers). */
export function parseBooleanish(v: unknown): boolean | undefined {
  if (v === true || v === 'true' || v === '1' || v === 1) return true;
  if (v === false || v === 'false' || v === '0' || v === 0) return false;
  return undefined;
}

/** Escapes `\`, `%` and `_` so that a value matches literally inside a LIKE pattern. */
export function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** A string operand for the text operators (`$contains`, `$eqi`, ...). */
export function castText(v: unknown): CastResult {
  if (typeof v === 'string') return { ok: true, value: v };
  if (typeof v === 'number' && Number.isFinite(v)) return { ok: true, value: String(v) };
  return { ok: false, error: `expected a string, got ${show(v)}` };
}

export function castValue(field: ResolvedField, v: unknown): CastResult {
  const fail = (what: string): CastResult => ({ ok: false, error: `expected ${what}, got ${show(v)}` });
  switch (field.type) {
    case 'integer': {
      const n = parseInteger(v);
      if (n === undefined) return fail('an integer');
      if (n < INT4_MIN || n > INT4_MAX) return { ok: false, error: `integer ${show(v)} is out of range` };
      return { ok: true, value: n };
    }
    case 'bigint': {
      const n = parseInteger(v);
      return n === undefined ? fail('an integer') : { ok: true, value: n };
    }
    case 'number': {
      if (typeof v === 'number') return Number.isFinite(v) ? { ok: true, value: v } : fail('a number');
      if (typeof v !== 'string' || !NUMBER.test(v)) return fail('a number');
      const n = Number(v);
      return Number.isFinite(n) ? { ok: true, value: n } : fail('a number');
    }
    case 'boolean': {
      const b = parseBooleanish(v);
      return b === undefined ? fail('true or false') : { ok: true, value: b };
    }
    case 'date': {
      const iso = typeof v === 'string' ? normalizeIsoDate(v) : undefined;
      return iso === undefined ? fail('an ISO 8601 date') : { ok: true, value: iso };
    }
    case 'enum': {
      if (typeof v === 'string' && field.enumValues.includes(v)) return { ok: true, value: v };
      return fail(`one of ${field.enumValues.join(', ')}`);
    }
    case 'string':
      return castText(v);
    case 'json':
      return { ok: false, error: 'json fields only take $null and $notNull' };
    default: {
      const never: never = field.type;
      return { ok: false, error: `unsupported field type ${String(never)}` };
    }
  }
}

const pad = (n: number, width: number): string => String(n).padStart(width, '0');

/**
 * Validates an ISO 8601 date or date-time and returns it in UTC as
 * `YYYY-MM-DDTHH:MM:SS[.fraction]Z` (fraction kept to the digit, so a
 * microsecond bound stays exact). A date-time without an offset is taken as
 * UTC; a date alone is midnight UTC. Years outside 0001..9999 are refused.
 */
export function normalizeIsoDate(s: string): string | undefined {
  const m = ISO_DATE.exec(s);
  if (!m) return undefined;
  const [, y, mo, d, h = '0', mi = '0', sec = '0', frac, zulu, sign, oh, om = '0'] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(sec);
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  const dt = new Date(0);
  dt.setUTCFullYear(year, month - 1, day);
  dt.setUTCHours(hour, minute, second, 0);
  if (dt.getUTCFullYear() !== year || dt.getUTCMonth() !== month - 1 || dt.getUTCDate() !== day) return undefined;
  if (!zulu && sign !== undefined) {
    const offH = Number(oh);
    const offM = Number(om);
    if (offH > 23 || offM > 59) return undefined;
    const offset = (offH * 60 + offM) * 60_000;
    dt.setTime(dt.getTime() + (sign === '-' ? offset : -offset));
  }
  const outYear = dt.getUTCFullYear();
  if (outYear < 1 || outYear > 9999) return undefined;
  const date = `${pad(outYear, 4)}-${pad(dt.getUTCMonth() + 1, 2)}-${pad(dt.getUTCDate(), 2)}`;
  const time = `${pad(dt.getUTCHours(), 2)}:${pad(dt.getUTCMinutes(), 2)}:${pad(dt.getUTCSeconds(), 2)}`;
  return `${date}T${time}${frac ? `.${frac}` : ''}Z`;
}
