import { LABEL_COUNT } from '../labels';
import type { NerModelFile } from '../model';

/**
 * One model whose weights are the mean of several models' weights (a feature
 * a model lacks counts as zero there), transitions and start scores included.
 * The models are perceptrons trained on corpora generated with different
 * seeds: each has leaned on its own draws of names and phrasings, and the mean
 * keeps what they agree on (a uniform ensemble of linear scorers is the linear
 * scorer of the mean weights, so one Viterbi pass decodes it). Weights are
 * re-quantised to the models' common scale; a feature whose largest mean
 * weight is below `prune` is left out, as toModelFile does for one model.
 * The gazetteers are the first model's (every seed builds the same lists).
 */
export function averageModelFiles(models: readonly NerModelFile[], prune: number, meta: Record<string, string | number>): NerModelFile {
  const first = models[0];
  if (!first) throw new Error('averageModelFiles needs at least one model');
  const scale = first.scale;
  for (const m of models) {
    if (m.scale !== scale || m.labels.join() !== first.labels.join()) throw new Error('models to average must share their labels and scale');
    if (JSON.stringify(m.gazetteers) !== JSON.stringify(first.gazetteers)) throw new Error('models to average must share their gazetteers');
    if (!m.transitions2 !== !first.transitions2) throw new Error('models to average must all have second-order transitions, or none');
  }
  const n = models.length;
  // Sums in quantised units; the mean is taken once, at the end.
  const sums = new Map<number, Float64Array>();
  for (const m of models) {
    const f = m.features;
    for (let p = 0; p < f.length; p += 2 + 2 * f[p + 1]!) {
      const hash = f[p]!;
      let row = sums.get(hash);
      if (!row) sums.set(hash, (row = new Float64Array(LABEL_COUNT)));
      for (let k = 0; k < f[p + 1]!; k++) row[f[p + 2 + 2 * k]!]! += f[p + 3 + 2 * k]!;
    }
  }
  const features: number[] = [];
  for (const hash of [...sums.keys()].sort((a, b) => a - b)) {
    const row = sums.get(hash)!;
    let largest = 0;
    for (let y = 0; y < LABEL_COUNT; y++) largest = Math.max(largest, (Math.abs(row[y]!) / n) * scale);
    if (largest < prune) continue;
    const sparse: number[] = [];
    for (let y = 0; y < LABEL_COUNT; y++) {
      const v = Math.round(row[y]! / n);
      if (v !== 0) sparse.push(y, v);
    }
    if (sparse.length) features.push(hash, sparse.length / 2, ...sparse);
  }
  const mean = (pick: (m: NerModelFile) => readonly number[]): number[] => pick(first).map((_, i) => Math.round(models.reduce((s, m) => s + pick(m)[i]!, 0) / n));
  return {
    format: 'docflow-ner/2',
    labels: [...first.labels],
    scale,
    transitions: mean((m) => m.transitions),
    start: mean((m) => m.start),
    ...(first.transitions2 ? { transitions2: mean((m) => m.transitions2 ?? []) } : {}),
    features,
    gazetteers: first.gazetteers,
    meta,
  };
}
