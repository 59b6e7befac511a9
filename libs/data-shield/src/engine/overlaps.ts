import type { DetectedEntity } from '../entities';

/**
 * Keeps a set of spans that never overlap (spec 4.17 rule 5): higher
 * priority first, then the longer span, then the higher score, then the
 * earlier start. Claimed characters are marked in one array, so the cost is
 * linear in the text and the spans, however many overlap.
 */
export function resolveOverlaps(candidates: readonly DetectedEntity[], text: string): DetectedEntity[] {
  const textLength = text.length;
  if (candidates.length <= 1) return [...candidates];
  const sorted = [...candidates].sort((a, b) => b.priority - a.priority || b.end - b.start - (a.end - a.start) || b.score - a.score || a.start - b.start);
  const taken = new Uint8Array(textLength);
  const kept: DetectedEntity[] = [];
  for (const e of sorted) {
    if (e.start < 0 || e.end > textLength || e.end <= e.start) continue;
    let free = true;
    for (let i = e.start; i < e.end; i++) {
      if (taken[i]) {
        free = false;
        break;
      }
    }
    if (free) {
      taken.fill(1, e.start, e.end);
      kept.push(e);
    } else if (e.divisible) {
      for (const piece of freePieces(e, taken, text)) {
        taken.fill(1, piece.start, piece.end);
        kept.push(piece);
      }
    }
  }
  return kept.sort((a, b) => a.start - b.start);
}

/** Separators a remainder never starts or ends with. */
const EDGE = /[\s,;:()\-/|]/;

/**
 * The parts of a divisible span that no kept span covers, without
 * separators at their edges; parts with no letter are left out (the digits
 * beside a phone number are not a name).
 */
function freePieces(e: DetectedEntity, taken: Uint8Array, text: string): DetectedEntity[] {
  const pieces: DetectedEntity[] = [];
  let i = e.start;
  while (i < e.end) {
    while (i < e.end && taken[i]) i++;
    let j = i;
    while (j < e.end && !taken[j]) j++;
    let start = i;
    let end = j;
    while (start < end && EDGE.test(text[start]!)) start++;
    while (end > start && EDGE.test(text[end - 1]!)) end--;
    if (/\p{L}/u.test(text.slice(start, end))) pieces.push({ ...e, start, end });
    i = j;
  }
  return pieces;
}
