import { LABEL_COUNT, LABELS } from './labels';
import type { FeatureRows } from './features';
import type { GazetteerLists } from './gazetteer';

/**
 * The shipped model, as JSON (gzipped on disk). Weights are integers: the
 * trained float weight divided by `scale` and rounded, which keeps the file
 * small and the output identical on every machine.
 */
export interface NerModelFile {
  format: 'docflow-ner/2';
  labels: string[];
  scale: number;
  /** L × L, from × to. */
  transitions: number[];
  start: number[];
  /** L × L × L second-order transitions (two back × previous × this), when the model was trained with them. */
  transitions2?: number[];
  /**
   * Every feature, flat: its hash (see features.ts), the number k of its
   * non-zero weights, then k pairs (label, weight). Sorted by hash.
   */
  features: number[];
  gazetteers: GazetteerLists;
  meta: Record<string, string | number>;
}

/**
 * Model weights ready for scoring: one dense row of L floats per feature,
 * found through an open-addressing table keyed by the feature's hash.
 */
export class NerWeights {
  /** Slot s holds [hash, row + 1] at 2s and 2s + 1, side by side so that a probe touches one cache line; row + 1 = 0 marks an empty slot. */
  private readonly table: Int32Array;
  private readonly mask: number;
  /** Float32 halves the rows' memory traffic; the integer weights fit it exactly. */
  readonly weights: Float32Array;
  readonly transitions: Float64Array;
  readonly start: Float64Array;
  /** Second-order transitions, or undefined for a first-order model. */
  readonly transitions2: Float64Array | undefined;

  constructor(file: NerModelFile) {
    if (file.format !== 'docflow-ner/2') throw new Error(`unknown NER model format ${String(file.format)}`);
    if (file.labels.join() !== LABELS.join()) throw new Error('the NER model was trained for another label set');
    const f = file.features;
    let count = 0;
    for (let p = 0; p < f.length; p += 2 + 2 * f[p + 1]!) count++;
    let size = 1;
    while (size < count * 2) size <<= 1;
    this.mask = size - 1;
    this.table = new Int32Array(size * 2);
    this.weights = new Float32Array(count * LABEL_COUNT);
    let row = 0;
    for (let p = 0; p < f.length; p += 2 + 2 * f[p + 1]!, row++) {
      const hash = f[p]! | 0;
      let slot = hash & this.mask;
      while (this.table[2 * slot + 1] !== 0) slot = (slot + 1) & this.mask;
      this.table[2 * slot] = hash;
      this.table[2 * slot + 1] = row + 1;
      for (let k = 0; k < f[p + 1]!; k++) this.weights[row * LABEL_COUNT + f[p + 2 + 2 * k]!] = f[p + 3 + 2 * k]! * file.scale;
    }
    this.transitions = Float64Array.from(file.transitions, (v) => v * file.scale);
    this.start = Float64Array.from(file.start, (v) => v * file.scale);
    if (file.transitions2 && file.transitions2.length !== LABEL_COUNT ** 3) throw new Error('the NER model has second-order transitions of the wrong size');
    this.transitions2 = file.transitions2 ? Float64Array.from(file.transitions2, (v) => v * file.scale) : undefined;
  }

  /** The row of a feature hash, or -1 when the model does not know it. */
  rowOf(hash: number): number {
    const key = hash | 0;
    for (let slot = key & this.mask; ; slot = (slot + 1) & this.mask) {
      const row = this.table[2 * slot + 1]!;
      if (row === 0) return -1;
      if (this.table[2 * slot] === key) return row - 1;
    }
  }

  /** emissions() over sentenceFeatureRows' flat form. */
  emissionsOfRows(rows: FeatureRows, n: number): Float64Array {
    const out = new Float64Array(n * LABEL_COUNT);
    const { hashes, offsets } = rows;
    const weights = this.weights;
    for (let i = 0; i < n; i++) {
      const base = i * LABEL_COUNT;
      for (let k = offsets[i]!, end = offsets[i + 1]!; k < end; k++) {
        const row = this.rowOf(hashes[k]!);
        if (row < 0) continue;
        const off = row * LABEL_COUNT;
        for (let y = 0; y < LABEL_COUNT; y++) out[base + y]! += weights[off + y]!;
      }
    }
    return out;
  }

  /** n × L emission scores: for each token, the sum of its features' rows. */
  emissions(features: readonly (readonly number[])[]): Float64Array {
    const out = new Float64Array(features.length * LABEL_COUNT);
    for (let i = 0; i < features.length; i++) {
      const base = i * LABEL_COUNT;
      for (const f of features[i]!) {
        const row = this.rowOf(f);
        if (row < 0) continue;
        const off = row * LABEL_COUNT;
        for (let y = 0; y < LABEL_COUNT; y++) out[base + y]! += this.weights[off + y]!;
      }
    }
    return out;
  }
}
