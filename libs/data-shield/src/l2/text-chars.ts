/**
 * Per-UTF-16-unit tables shared by the word-list automaton: a lower-case
 * fold that never changes a string's length (so offsets stay those of the
 * original text) and a word-character test for boundaries.
 */
let lowerTable: Uint16Array | undefined;
let wordTable: Uint8Array | undefined;

export function lowerFold(): Uint16Array {
  if (!lowerTable) {
    const table = new Uint16Array(65536);
    for (let c = 0; c < 65536; c++) {
      if (c >= 0xd800 && c <= 0xdfff) {
        table[c] = c;
        continue;
      }
      const lower = String.fromCharCode(c).toLowerCase();
      table[c] = lower.length === 1 ? lower.charCodeAt(0) : c;
    }
    lowerTable = table;
  }
  return lowerTable;
}

/** Letters, digits (any script), combining marks and `_`; surrogate halves count as word characters. */
export function wordChars(): Uint8Array {
  if (!wordTable) {
    const table = new Uint8Array(65536);
    const re = /[\p{L}\p{N}\p{M}_]/u;
    for (let c = 0; c < 65536; c++) {
      if (c >= 0xd800 && c <= 0xdfff) table[c] = 1;
      else table[c] = re.test(String.fromCharCode(c)) ? 1 : 0;
    }
    wordTable = table;
  }
  return wordTable;
}

export function foldString(s: string): string {
  const table = lowerFold();
  let out = '';
  for (let i = 0; i < s.length; i++) out += String.fromCharCode(table[s.charCodeAt(i)]!);
  return out;
}
