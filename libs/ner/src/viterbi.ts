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
