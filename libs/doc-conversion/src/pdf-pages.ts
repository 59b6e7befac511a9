/**
 * Page count of a PDF written with classic (non-stream) cross-reference
 * objects, as LibreOffice writes them: the largest /Count of a /Type /Pages
 * object, or else the number of /Type /Page objects. Undefined when neither
 * is found (object streams, say); callers treat the count as optional.
 */
export function countPdfPages(pdf: Buffer): number | undefined {
  const text = pdf.toString('latin1');
  let best: number | undefined;
  let pageObjects = 0;
  for (const object of text.split(/\bendobj\b/)) {
    // Only the dictionary: stream data (compressed content) is cut off.
    const dictionary = object.split(/\bstream\b/, 1)[0] ?? '';
    if (/\/Type\s*\/Pages\b/.test(dictionary)) {
      const count = /\/Count\s+(\d+)/.exec(dictionary);
      if (count?.[1] !== undefined) best = Math.max(best ?? 0, Number(count[1]));
    } else if (/\/Type\s*\/Page\b/.test(dictionary)) {
      pageObjects += 1;
    }
  }
  if (best !== undefined) return best;
  return pageObjects > 0 ? pageObjects : undefined;
}
