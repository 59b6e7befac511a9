/**
 * `*` wildcard matching (spec 2.17: `name` and `mime_type` filters) without
 * regular expressions built from user input, in time linear in the pattern
 * and the text: the pattern is split at `*` into literal segments; the first
 * must start the text, the last must end it, and the middle ones are found
 * left to right, each at its first occurrence after the previous one (the
 * greedy choice is always safe for `*`-only patterns), with Knuth-Morris-Pratt
 * so no search ever rescans the text. `*` matches any run of characters,
 * including none; there is no other special character.
 */
export function globMatches(pattern: string, text: string): boolean {
  const segments = pattern.split('*');
  if (segments.length === 1) return pattern === text;
  const first = segments[0]!;
  const last = segments[segments.length - 1]!;
  if (first.length + last.length > text.length) return false;
  if (!text.startsWith(first) || !text.endsWith(last)) return false;
  let position = first.length;
  const end = text.length - last.length;
  for (let i = 1; i < segments.length - 1; i += 1) {
    const segment = segments[i]!;
    if (segment.length === 0) continue;
    const found = indexOfKmp(text, segment, position, end);
    if (found < 0) return false;
    position = found + segment.length;
  }
  return true;
}

/** First index >= from where `needle` occurs in `text` and ends at or before `end`; -1 if none. O(|needle| + end - from). */
export function indexOfKmp(text: string, needle: string, from: number, end: number = text.length): number {
  if (needle.length === 0) return from <= end ? from : -1;
  const failure = failureTable(needle);
  let matched = 0;
  for (let i = from; i < end; i += 1) {
    const c = text.charCodeAt(i);
    while (matched > 0 && needle.charCodeAt(matched) !== c) matched = failure[matched - 1]!;
    if (needle.charCodeAt(matched) === c) matched += 1;
    if (matched === needle.length) return i - needle.length + 1;
  }
  return -1;
}

function failureTable(needle: string): Uint32Array {
  const table = new Uint32Array(needle.length);
  let k = 0;
  for (let i = 1; i < needle.length; i += 1) {
    const c = needle.charCodeAt(i);
    while (k > 0 && needle.charCodeAt(k) !== c) k = table[k - 1]!;
    if (needle.charCodeAt(k) === c) k += 1;
    table[i] = k;
  }
  return table;
}
