/**
 * PostgreSQL refuses a NUL character in any text, and a lone UTF-16
 * surrogate inside jsonb, so such input would fail at the INSERT (a 500).
 * createHttpApp refuses it in request bodies and query strings (400) and in
 * paths (404) before any route runs; multipart fields are checked where
 * they are parsed.
 */
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

const MAX_DEPTH = 64;

/** Whether the database can store this string as text or inside jsonb. */
export function storableText(value: string): boolean {
  return !UNSTORABLE.test(value);
}

/**
 * The path of the first string (value or object key) in a JSON value that the
 * database cannot store, or undefined when every one is storable.
 */
export function unstorablePath(value: unknown, path = '', depth = 0): string | undefined {
  if (typeof value === 'string') return storableText(value) ? undefined : path || '(value)';
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = unstorablePath(value[i], `${path}[${i}]`, depth + 1);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  for (const [key, v] of Object.entries(value)) {
    const here = path ? `${path}.${storableText(key) ? key : '?'}` : storableText(key) ? key : '?';
    if (!storableText(key)) return here;
    const found = unstorablePath(v, here, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The error text for such a string, naming where it is and never its value. */
export function unstorableMessage(path: string): string {
  return `${path}: must not contain NUL characters or unpaired UTF-16 surrogates`;
}
