import { allowedTransition, LABEL_COUNT } from './labels';

const L = LABEL_COUNT;

// Which label may follow which, worked out once for the BIO label set.
const ALLOWED: Uint8Array = (() => {
  const a = new Uint8Array(L * L);
  for (let p = 0; p < L; p++) for (let y = 0; y < L; y++) a[p * L + y] = allowedTransition(p, y) ? 1 : 0;
  return a;
})();

/**
 * Highest-scoring label sequence for a first-order model over LABELS:
 * `emissions` is n × L (a row per token), `transitions` L × L (from × to),
 * `start` the score of each label on the first token. Transitions that BIO
 * forbids (O → I-X, I-X → I-Y) are never taken, whatever their weight.
 */
export function viterbi(emissions: Float64Array, n: number, transitions: Float64Array, start: Float64Array): number[] {
  if (n === 0) return [];
  const score = new Float64Array(n * L);
  const back = new Int32Array(n * L);
  for (let y = 0; y < L; y++) score[y] = allowedTransition(-1, y) ? start[y]! + emissions[y]! : -Infinity;
  for (let i = 1; i < n; i++) {
    for (let y = 0; y < L; y++) {
      let best = -Infinity;
      let arg = 0;
      for (let p = 0; p < L; p++) {
        if (!ALLOWED[p * L + y]) continue;
        const v = score[(i - 1) * L + p]! + transitions[p * L + y]!;
        if (v > best) {
          best = v;
          arg = p;
        }
      }
      score[i * L + y] = best + emissions[i * L + y]!;
      back[i * L + y] = arg;
    }
  }
  let last = 0;
  for (let y = 1; y < L; y++) if (score[(n - 1) * L + y]! > score[(n - 1) * L + last]!) last = y;
  const path = new Array<number>(n);
  path[n - 1] = last;
  for (let i = n - 1; i > 0; i--) path[i - 1] = back[i * L + path[i]!]!;
  return path;
}

/**
 * viterbi() with second-order transitions as well: `transitions2` is L × L × L
 * (the label two back × the previous label × this one), added to the
 * first-order scores from the third token on. The states are pairs of labels,
 * so the work is L times the first-order pass; with `transitions2` all zero
 * the best path is viterbi()'s.
 */
export function viterbi2(emissions: Float64Array, n: number, transitions: Float64Array, start: Float64Array, transitions2: Float64Array): number[] {
  if (n < 3) return viterbi(emissions, n, transitions, start);
  // score[(i * L + p) * L + y]: the best path ending with labels p, y at tokens i - 1, i.
  const score = new Float64Array(n * L * L).fill(-Infinity);
  const back = new Int32Array(n * L * L);
  for (let p = 0; p < L; p++) {
    if (!allowedTransition(-1, p)) continue;
    for (let y = 0; y < L; y++) {
      if (!ALLOWED[p * L + y]) continue;
      score[(L + p) * L + y] = start[p]! + emissions[p]! + transitions[p * L + y]! + emissions[L + y]!;
    }
  }
  for (let i = 2; i < n; i++) {
    for (let p = 0; p < L; p++) {
      for (let y = 0; y < L; y++) {
        if (!ALLOWED[p * L + y]) continue;
        let best = -Infinity;
        let arg = 0;
        for (let q = 0; q < L; q++) {
          const v = score[((i - 1) * L + q) * L + p]! + transitions2[(q * L + p) * L + y]!;
          if (v > best) {
            best = v;
            arg = q;
          }
        }
        score[(i * L + p) * L + y] = best + transitions[p * L + y]! + emissions[i * L + y]!;
        back[(i * L + p) * L + y] = arg;
      }
    }
  }
  let lastP = 0;
  let lastY = 0;
  for (let p = 0; p < L; p++) for (let y = 0; y < L; y++) if (score[((n - 1) * L + p) * L + y]! > score[((n - 1) * L + lastP) * L + lastY]!) [lastP, lastY] = [p, y];
  const path = new Array<number>(n);
  path[n - 1] = lastY;
  path[n - 2] = lastP;
  for (let i = n - 1; i > 1; i--) path[i - 2] = back[(i * L + path[i - 1]!) * L + path[i]!]!;
  return path;
}
