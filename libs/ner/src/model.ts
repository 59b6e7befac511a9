import { LABEL_COUNT, LABELS } from './labels';
import type { GazetteerLists } from './gazetteer';

/**
 * The shipped model, as JSON (gzipped on disk). Weights are integers: the
 * trained float weight divided by `scale` and rounded, which keeps the file
 * small and the output identical on every machine.
 */
export interface NerModelFile {
  format: 'docflow-ner/1';
  labels: string[];
  scale: number;
  /** L × L, from × to. */
  transitions: number[];
  start: number[];
  /** Feature → sparse weights [label, weight, label, weight, ...]. Keys sorted. */
  features: Record<string, number[]>;
  gazetteers: GazetteerLists;
  meta: Record<string, string | number>;
}

/** Model weights ready for scoring: one dense row of L floats per feature. */
export class NerWeights {
  readonly rows = new Map<string, number>();
  readonly weights: Float64Array;
  readonly transitions: Float64Array;
  readonly start: Float64Array;

  constructor(file: NerModelFile) {
    if (file.format !== 'docflow-ner/1') throw new Error(`unknown NER model format ${String(file.format)}`);
    if (file.labels.join() !== LABELS.join()) throw new Error('the NER model was trained for another label set');
    const names = Object.keys(file.features);
    this.weights = new Float64Array(names.length * LABEL_COUNT);
    names.forEach((name, row) => {
      this.rows.set(name, row);
      const sparse = file.features[name]!;
      for (let k = 0; k < sparse.length; k += 2) this.weights[row * LABEL_COUNT + sparse[k]!] = sparse[k + 1]! * file.scale;
    });
    this.transitions = Float64Array.from(file.transitions, (v) => v * file.scale);
    this.start = Float64Array.from(file.start, (v) => v * file.scale);
  }

  /** n × L emission scores: for each token, the sum of its features' rows. */
  emissions(features: readonly (readonly string[])[]): Float64Array {
    const out = new Float64Array(features.length * LABEL_COUNT);
    features.forEach((fs, i) => {
      const base = i * LABEL_COUNT;
      for (const f of fs) {
        const row = this.rows.get(f);
        if (row === undefined) continue;
        const off = row * LABEL_COUNT;
        for (let y = 0; y < LABEL_COUNT; y++) out[base + y]! += this.weights[off + y]!;
      }
    });
    return out;
  }
}
