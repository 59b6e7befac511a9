/**
 * The `inputs_summary` of a recent error (spec 4.7): every top-level input key
 * (at most INPUT_SUMMARY_MAX_KEYS, alphabetical) with a short value. Strings
 * are cut to INPUT_SUMMARY_MAX_CHARS, objects and arrays are only sized (their
 * content may hold secrets under keys we never see), and values under keys
 * that look like secrets, or that look like credentials themselves, are
 * replaced by REDACTED. PostgreSQL does the cutting (see the repository), so
 * a large input never leaves the database.
 */

export const INPUT_SUMMARY_MAX_KEYS = 20;
export const INPUT_SUMMARY_MAX_CHARS = 200;
export const REDACTED = '[REDACTED]';

/** One input as the repository reads it: the value's JSON type and, for scalars, its text (strings cut to MAX_CHARS + 1). */
export interface InputPreview {
  key: string;
  type: 'string' | 'number' | 'boolean' | 'null' | 'object' | 'array';
  /** Strings: the first MAX_CHARS + 1 characters; numbers and booleans: their JSON text; otherwise null. */
  text: string | null;
  /** Objects: their key count; arrays: their length; otherwise null. */
  size: number | null;
}

export type InputSummaryValue = string | number | boolean | null;

const SECRET_KEY =
  /passw|passphrase|passcode|^pass$|pwd|secret|token|api[-_]?key|access[-_]?key|private[-_]?key|authori[sz]ation|^auth$|credential|cookie|session|signature|^otp$|^pin$|cvv|card[-_]?number|^ssn$/i;

const SECRET_VALUE = /^\s*(bearer|basic)\s+\S|^eyJ[\w-]+\.[\w-]+\.|-----BEGIN [A-Z ]*PRIVATE KEY/i;

export function isSecretLookingKey(key: string): boolean {
  return SECRET_KEY.test(key);
}

function clip(text: string, max = INPUT_SUMMARY_MAX_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function valueOf(p: InputPreview): InputSummaryValue {
  switch (p.type) {
    case 'string': {
      const text = p.text ?? '';
      return SECRET_VALUE.test(text) ? REDACTED : clip(text);
    }
    case 'number': {
      const n = Number(p.text);
      // A number JavaScript cannot hold exactly (a 20-digit id, say) stays text.
      const exact = Number.isFinite(n) && (!Number.isInteger(n) || Number.isSafeInteger(n));
      return exact ? n : clip(p.text ?? '');
    }
    case 'boolean':
      return p.text === 'true';
    case 'null':
      return null;
    case 'object':
      return `{${p.size ?? 0} keys}`;
    case 'array':
      return `[${p.size ?? 0} items]`;
  }
}

export function summarizeInputs(previews: readonly InputPreview[]): Record<string, InputSummaryValue> {
  const out: Record<string, InputSummaryValue> = {};
  for (const p of previews.slice(0, INPUT_SUMMARY_MAX_KEYS)) {
    const key = clip(p.key, 100);
    out[key] = isSecretLookingKey(p.key) ? REDACTED : valueOf(p);
  }
  return out;
}
