import type { Rng } from './rng';

/**
 * Hierarchical spherical k-means: the unit vectors are split into `branching`
 * clusters by cosine similarity, each of those again, `depth` times. A
 * vector's leaf code is its path read in base `branching` from the root, so
 * that its first digits name the coarser clusters (see ../clusters.ts). Seeded
 * k-means++ starts, a fixed number of rounds at most: the same input and seed
 * give the same codes.
 */
export interface ClusterTreeOptions {
  branching: number;
  depth: number;
  rounds: number;
  rng: Rng;
}

/** Scales each of the n rows of `dim` values to length 1 in place (a zero row stays zero). */
export function normaliseRows(vectors: Float32Array, dim: number): void {
  for (let off = 0; off < vectors.length; off += dim) {
    let sum = 0;
    for (let d = 0; d < dim; d++) sum += vectors[off + d]! * vectors[off + d]!;
    const norm = Math.sqrt(sum);
    if (norm > 0) for (let d = 0; d < dim; d++) vectors[off + d]! /= norm;
  }
}

export function clusterTree(vectors: Float32Array, dim: number, options: ClusterTreeOptions): Int32Array {
  const n = vectors.length / dim;
  const codes = new Int32Array(n);
  const split = (members: Int32Array, level: number): void => {
    if (level === options.depth) return;
    const labels = kMeans(vectors, dim, members, options.branching, options.rounds, options.rng);
    for (let c = 0; c < options.branching; c++) {
      const child = members.filter((_, i) => labels[i] === c);
      for (const m of child) codes[m] = codes[m]! * options.branching + c;
      split(child, level + 1);
    }
  };
  split(
    Int32Array.from({ length: n }, (_, i) => i),
    0,
  );
  return codes;
}

/** Spherical k-means over the rows `members` of unit vectors: each member's cluster, 0 ≤ label < k. */
export function kMeans(vectors: Float32Array, dim: number, members: Int32Array, k: number, rounds: number, rng: Rng): Int32Array {
  const m = members.length;
  const labels = new Int32Array(m);
  if (m <= k) {
    labels.forEach((_, i) => (labels[i] = i));
    return labels;
  }
  const centres = new Float32Array(k * dim);
  const dot = (row: number, c: number): number => {
    let s = 0;
    const a = row * dim;
    const b = c * dim;
    for (let d = 0; d < dim; d++) s += vectors[a + d]! * centres[b + d]!;
    return s;
  };
  // k-means++: each next centre drawn with probability ∝ its squared distance (2 − 2 cos) to the nearest one so far.
  const nearest = new Float64Array(m).fill(Infinity);
  let pick = rng.int(m);
  for (let c = 0; c < k; c++) {
    centres.set(vectors.subarray(members[pick]! * dim, members[pick]! * dim + dim), c * dim);
    let total = 0;
    for (let i = 0; i < m; i++) {
      nearest[i] = Math.min(nearest[i]!, Math.max(0, 2 - 2 * dot(members[i]!, c)));
      total += nearest[i]!;
    }
    let r = rng.next() * total;
    pick = m - 1;
    for (let i = 0; i < m; i++)
      if ((r -= nearest[i]!) < 0) {
        pick = i;
        break;
      }
  }
  for (let round = 0; round < rounds; round++) {
    let moved = 0;
    for (let i = 0; i < m; i++) {
      let best = 0;
      let bestSim = -Infinity;
      for (let c = 0; c < k; c++) {
        const s = dot(members[i]!, c);
        if (s > bestSim) {
          bestSim = s;
          best = c;
        }
      }
      if (labels[i] !== best || round === 0) moved++;
      labels[i] = best;
    }
    if (!moved) break;
    centres.fill(0);
    const sizes = new Int32Array(k);
    for (let i = 0; i < m; i++) {
      const c = labels[i]!;
      sizes[c]!++;
      const a = members[i]! * dim;
      for (let d = 0; d < dim; d++) centres[c * dim + d]! += vectors[a + d]!;
    }
    for (let c = 0; c < k; c++) {
      // An empty cluster restarts at a random member.
      if (!sizes[c]) {
        const row = members[rng.int(m)]!;
        centres.set(vectors.subarray(row * dim, row * dim + dim), c * dim);
      }
    }
    normaliseRows(centres, dim);
  }
  return labels;
}
