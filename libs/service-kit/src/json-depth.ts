/** How deeply a request body may nest objects and arrays (issue #13: deeper bodies were 500s). */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN = new Set([0x5b, 0x7b]); // [ {
const CLOSE = new Set([0x5d, 0x7d]); // ] }

/**
 * Whether raw JSON nests objects and arrays deeper than `max`, read in one
 * pass over the bytes before any parser builds the value (brackets inside
 * strings do not count). Malformed text is left to the parser to refuse.
 */
export function jsonDepthExceeds(raw: Uint8Array, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < raw.length; i++) {
    const byte = raw[i]!;
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) {
      inString = true;
    } else if (OPEN.has(byte)) {
      if (++depth > max) return true;
    } else if (CLOSE.has(byte)) {
      depth--;
    }
  }
  return false;
}
