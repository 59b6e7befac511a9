import { gzipSync } from 'node:zlib';
import type { GazetteerLists } from '../gazetteer';
import { LABEL_COUNT, LABELS } from '../labels';
import type { NerModelFile } from '../model';
import type { TrainedWeights } from './perceptron';

/**
 * Trained weights → the shipped file. Weights are stored as integer multiples
 * of `scale`; a feature whose weights are all small (below `prune`, or
 * rounding to zero) is dropped.
 */
export function toModelFile(
  trained: TrainedWeights,
  gazetteers: GazetteerLists,
  scale: number,
  meta: Record<string, string | number>,
  /** Features whose largest weight is smaller than this are left out: they rarely change a decision. */
  prune = 0,
): NerModelFile {
  const q = (v: number): number => Math.round(v / scale);
  const features: number[] = [];
  const rows = trained.featureHashes.map((hash, row) => [hash, row] as const).sort((a, b) => a[0] - b[0]);
  for (const [hash, row] of rows) {
    let largest = 0;
    for (let y = 0; y < LABEL_COUNT; y++) largest = Math.max(largest, Math.abs(trained.weights[row * LABEL_COUNT + y]!));
    if (largest < prune) continue;
    const sparse: number[] = [];
    for (let y = 0; y < LABEL_COUNT; y++) {
      const v = q(trained.weights[row * LABEL_COUNT + y]!);
      if (v !== 0) sparse.push(y, v);
    }
    if (sparse.length) features.push(hash, sparse.length / 2, ...sparse);
  }
  return {
    format: 'docflow-ner/2',
    labels: [...LABELS],
    scale,
    transitions: Array.from(trained.transitions, q),
    start: Array.from(trained.start, q),
    ...(trained.transitions2 ? { transitions2: Array.from(trained.transitions2, q) } : {}),
    features,
    gazetteers,
    meta,
  };
}

/** Deterministic bytes: keys in insertion order (sorted upstream), gzip with no timestamp (Node writes mtime 0). */
export function serialise(model: NerModelFile): Buffer {
  return gzipSync(Buffer.from(JSON.stringify(model)), { level: 9 });
}
