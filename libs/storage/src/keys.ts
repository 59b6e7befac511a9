import { randomUUID } from 'node:crypto';
import { StorageKeyError } from './errors';

const MAX_KEY_LENGTH = 512;
/** One path segment: starts with a letter or digit (so never `.`, `..` or a hidden temp file). */
const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const EXTENSION = /^[a-z0-9]{1,10}$/;

/**
 * A fresh storage key `yyyy/mm/<uuid>[.ext]` (UTC month). The extension, if
 * given, is normalised to lower case without its dot and must be 1-10 letters
 * or digits; pass the extension of the sniffed type, never the client's name.
 */
export function generateKey(ext?: string, now: Date = new Date()): string {
  const yyyy = String(now.getUTCFullYear()).padStart(4, '0');
  const mm = String(now.getUTCMonth() + 1).padStart(2, '0');
  let suffix = '';
  if (ext !== undefined && ext !== '') {
    const normalised = ext.replace(/^\./, '').toLowerCase();
    if (!EXTENSION.test(normalised)) throw new StorageKeyError(`extension "${ext}" is not 1-10 letters or digits`);
    suffix = `.${normalised}`;
  }
  return `${yyyy}/${mm}/${randomUUID()}${suffix}`;
}

/** Why key is not acceptable, or undefined when it is. */
export function keyProblem(key: unknown): string | undefined {
  if (typeof key !== 'string' || key.length === 0) return 'key must be a non-empty string';
  if (key.length > MAX_KEY_LENGTH) return `key is longer than ${MAX_KEY_LENGTH} characters`;
  const segments = key.split('/');
  for (const segment of segments) {
    if (segment === '') return 'key has an empty segment (leading, trailing or double slash)';
    if (!SEGMENT.test(segment)) return `key segment "${segment.slice(0, 40)}" has a character outside [A-Za-z0-9._-] or does not start with a letter or digit`;
  }
  return undefined;
}

export function assertValidKey(key: unknown): asserts key is string {
  const problem = keyProblem(key);
  if (problem !== undefined) throw new StorageKeyError(problem);
}

export function isValidKey(key: unknown): key is string {
  return keyProblem(key) === undefined;
}
