/** Reads a model's answer as JSON when it is an object or an array, bare or in a ``` fence. */
export function parseJsonContent(text: string): Record<string, unknown> | unknown[] | undefined {
  const candidates: string[] = [text.trim()];
  const fence = /```[ \t]*(?:json|JSON)?[ \t]*\r?\n([\s\S]*?)\r?\n?```/.exec(text);
  if (fence?.[1]) candidates.push(fence[1].trim());
  // A short preamble or postscript around one JSON value ("Here is the result: {...}").
  const first = text.search(/[{[]/);
  const last = Math.max(text.lastIndexOf('}'), text.lastIndexOf(']'));
  if (first >= 0 && last > first) candidates.push(text.slice(first, last + 1));
  for (const candidate of candidates) {
    if (!candidate.startsWith('{') && !candidate.startsWith('[')) continue;
    try {
      const value = JSON.parse(candidate) as unknown;
      if (value !== null && typeof value === 'object') return value as Record<string, unknown> | unknown[];
    } catch {
      // not this one
    }
  }
  return undefined;
}
