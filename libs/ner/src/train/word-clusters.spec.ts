import { Rng } from './rng';
import { clusterTree, kMeans, normaliseRows } from './word-clusters';

/** Unit vectors in 3 dimensions around two axes, a little noise each. */
function twoGroups(): Float32Array {
  const rows = [
    [1, 0.1, 0],
    [0.9, 0, 0.1],
    [1, -0.1, 0.05],
    [0, 1, 0.1],
    [0.1, 0.9, 0],
    [-0.05, 1, 0],
  ];
  const v = Float32Array.from(rows.flat());
  normaliseRows(v, 3);
  return v;
}

describe('word clusters by k-means', () => {
  it('scales rows to unit length', () => {
    const v = Float32Array.from([3, 4, 0, 0]);
    normaliseRows(v, 2);
    expect(Array.from(v)).toEqual([0.6000000238418579, 0.800000011920929, 0, 0]);
  });

  it('separates vectors that point different ways', () => {
    const labels = kMeans(twoGroups(), 3, Int32Array.from([0, 1, 2, 3, 4, 5]), 2, 10, new Rng(1));
    expect(labels[0]).toBe(labels[1]);
    expect(labels[1]).toBe(labels[2]);
    expect(labels[3]).toBe(labels[4]);
    expect(labels[4]).toBe(labels[5]);
    expect(labels[0]).not.toBe(labels[3]);
  });

  it('codes leaves so that the first digit is the coarse cluster, the same for the same seed', () => {
    const codes = clusterTree(twoGroups(), 3, { branching: 2, depth: 2, rounds: 10, rng: new Rng(5) });
    const top = Array.from(codes, (c) => c >> 1);
    expect(new Set(top.slice(0, 3)).size).toBe(1);
    expect(new Set(top.slice(3)).size).toBe(1);
    expect(top[0]).not.toBe(top[3]);
    expect(Math.max(...codes)).toBeLessThan(4);
    expect(clusterTree(twoGroups(), 3, { branching: 2, depth: 2, rounds: 10, rng: new Rng(5) })).toEqual(codes);
  });

  it('gives each member its own cluster when there are no more members than clusters', () => {
    expect(Array.from(kMeans(twoGroups(), 3, Int32Array.from([4, 2]), 3, 5, new Rng(1)))).toEqual([0, 1]);
  });
});
