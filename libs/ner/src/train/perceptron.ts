import { LABEL_COUNT } from '../labels';
import { viterbi, viterbi2 } from '../viterbi';
import { Rng } from './rng';

/**
 * Averaged structured perceptron (Collins 2002): decode each training
 * sentence with Viterbi under the current weights; where the best path differs
 * from the gold labels, add the gold path's features and subtract the
 * predicted one's. The weights returned are the average over every step, which
 * generalises far better than the last ones.
 */
export interface FeaturizedSentence {
  /** Per token, its feature hashes. */
  features: readonly (readonly number[])[];
  labels: readonly number[];
}

export interface PerceptronOptions {
  epochs: number;
  seed: number;
  /** Features seen fewer times than this in the corpus are dropped before training (noise, and size). */
  minCount: number;
  /** Also learn second-order transitions (the label two back, the previous one, this one), decoded by viterbi2. */
  secondOrder?: boolean;
  log?: (line: string) => void;
}

export interface TrainedWeights {
  /** Feature hashes, in row order. */
  featureHashes: number[];
  /** featureHashes.length × L averaged weights. */
  weights: Float64Array;
  transitions: Float64Array;
  start: Float64Array;
  /** L × L × L, when trained with secondOrder. */
  transitions2?: Float64Array;
}

const L = LABEL_COUNT;

interface Encoded {
  ids: Int32Array;
  /** Token i's feature ids are ids[offsets[i] .. offsets[i + 1]). */
  offsets: Int32Array;
  labels: Int32Array;
}

/**
 * Features are interned to integer ids in one pass over the corpus, so that
 * training holds one small integer per feature occurrence; those seen fewer than
 * `minCount` times are then dropped.
 */
export function trainPerceptron(corpus: Iterable<FeaturizedSentence>, options: PerceptronOptions): TrainedWeights {
  const idOf = new Map<number, number>();
  let counts = new Int32Array(1 << 16);
  const raw: Encoded[] = [];
  for (const s of corpus) {
    const ids: number[] = [];
    const offsets = new Int32Array(s.features.length + 1);
    s.features.forEach((fs, i) => {
      offsets[i] = ids.length;
      for (const f of fs) {
        let id = idOf.get(f);
        if (id === undefined) {
          id = idOf.size;
          idOf.set(f, id);
          if (id >= counts.length) {
            const grown = new Int32Array(counts.length * 2);
            grown.set(counts);
            counts = grown;
          }
        }
        counts[id]!++;
        ids.push(id);
      }
    });
    offsets[s.features.length] = ids.length;
    raw.push({ ids: Int32Array.from(ids), offsets, labels: Int32Array.from(s.labels) });
  }
  // Compact: keep the frequent features, renumbered in first-seen order.
  const keep = new Int32Array(idOf.size).fill(-1);
  const featureHashes: number[] = [];
  for (const [hash, id] of idOf) {
    if (counts[id]! >= options.minCount) {
      keep[id] = featureHashes.length;
      featureHashes.push(hash);
    }
  }
  idOf.clear();
  const sentences = raw.map((s) => compact(s, keep));
  options.log?.(`${sentences.length} sentences, ${featureHashes.length} features kept of ${keep.length}`);

  const nf = featureHashes.length;
  const w = new Float64Array(nf * L);
  const u = new Float64Array(nf * L); // Σ step × update, for the average
  const tw = new Float64Array(L * L);
  const tu = new Float64Array(L * L);
  const sw = new Float64Array(L);
  const su = new Float64Array(L);
  const second = options.secondOrder === true;
  const t2w = new Float64Array(second ? L * L * L : 0);
  const t2u = new Float64Array(second ? L * L * L : 0);
  let step = 1;

  const rng = new Rng(options.seed);
  const order = sentences.map((_, i) => i);
  for (let epoch = 1; epoch <= options.epochs; epoch++) {
    rng.shuffle(order);
    let wrong = 0;
    let tokens = 0;
    for (const index of order) {
      const s = sentences[index]!;
      const n = s.labels.length;
      tokens += n;
      const pred = second ? viterbi2(emissions(s, w), n, tw, sw, t2w) : viterbi(emissions(s, w), n, tw, sw);
      let differs = false;
      for (let i = 0; i < n; i++) {
        const gold = s.labels[i]!;
        const guess = pred[i]!;
        if (gold === guess) continue;
        differs = true;
        wrong++;
        for (let k = s.offsets[i]!; k < s.offsets[i + 1]!; k++) {
          const row = s.ids[k]! * L;
          w[row + gold]! += 1;
          u[row + gold]! += step;
          w[row + guess]! -= 1;
          u[row + guess]! -= step;
        }
      }
      if (differs) {
        const g0 = s.labels[0]!;
        const p0 = pred[0]!;
        if (g0 !== p0) {
          sw[g0]! += 1;
          su[g0]! += step;
          sw[p0]! -= 1;
          su[p0]! -= step;
        }
        for (let i = 1; i < n; i++) {
          const g = s.labels[i - 1]! * L + s.labels[i]!;
          const p = pred[i - 1]! * L + pred[i]!;
          if (g === p) continue;
          tw[g]! += 1;
          tu[g]! += step;
          tw[p]! -= 1;
          tu[p]! -= step;
        }
        for (let i = 2; second && i < n; i++) {
          const g = (s.labels[i - 2]! * L + s.labels[i - 1]!) * L + s.labels[i]!;
          const p = (pred[i - 2]! * L + pred[i - 1]!) * L + pred[i]!;
          if (g === p) continue;
          t2w[g]! += 1;
          t2u[g]! += step;
          t2w[p]! -= 1;
          t2u[p]! -= step;
        }
      }
      step++;
    }
    options.log?.(`epoch ${epoch}: token error rate ${(wrong / tokens).toFixed(4)}`);
  }

  const average = (cur: Float64Array, acc: Float64Array): Float64Array => cur.map((v, i) => v - acc[i]! / step);
  const out: TrainedWeights = { featureHashes, weights: average(w, u), transitions: average(tw, tu), start: average(sw, su) };
  if (second) out.transitions2 = average(t2w, t2u);
  return out;
}

function compact(s: Encoded, keep: Int32Array): Encoded {
  const ids: number[] = [];
  const offsets = new Int32Array(s.offsets.length);
  for (let i = 0; i + 1 < s.offsets.length; i++) {
    offsets[i] = ids.length;
    for (let k = s.offsets[i]!; k < s.offsets[i + 1]!; k++) {
      const id = keep[s.ids[k]!]!;
      if (id >= 0) ids.push(id);
    }
  }
  offsets[s.offsets.length - 1] = ids.length;
  return { ids: Int32Array.from(ids), offsets, labels: s.labels };
}

function emissions(s: Encoded, w: Float64Array): Float64Array {
  const n = s.labels.length;
  const out = new Float64Array(n * L);
  for (let i = 0; i < n; i++) {
    for (let k = s.offsets[i]!; k < s.offsets[i + 1]!; k++) {
      const row = s.ids[k]! * L;
      for (let y = 0; y < L; y++) out[i * L + y]! += w[row + y]!;
    }
  }
  return out;
}
