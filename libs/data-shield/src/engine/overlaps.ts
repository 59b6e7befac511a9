import type { DetectedEntity } from '../entities';

/**
 * Keeps a set of spans that never overlap (spec 4.17 rule 5): higher
 * priority first, then the longer span, then the higher score, then the
 * earlier start. Claimed characters are marked in one array, so the cost is
 * linear in the text and the spans, however many overlap.
 */
export function resolveOverlaps(candidates: readonly DetectedEntity[], textLength: number): DetectedEntity[] {
  if (candidates.length <= 1) return [...candidates];
  const sorted = [...candidates].sort(
    (a, b) => b.priority - a.priority || b.end - b.start - (a.end - a.start) || b.score - a.score || a.start - b.start,
  );
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
    if (!free) continue;
    taken.fill(1, e.start, e.end);
    kept.push(e);
  }
  return kept.sort((a, b) => a.start - b.start);
}
