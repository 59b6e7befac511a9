import { NO_CLUSTER, WordClusters } from './clusters';
import { tokenize } from './tokenizer';

describe('WordClusters', () => {
  // branching 4, depth 3: leaf codes 0..63, read in base 4 from the root down.
  const clusters = new WordClusters({ branching: 4, depth: 3, words: ['friday', 'leeds', 'lyon', 'tuesday'], codes: [0b00_01_10, 0b11_00_01, 0b11_00_11, 0b00_01_01] });

  it('finds a word in any case and marks words outside the table', () => {
    expect(clusters.codeOf('Friday')).toBe(6);
    expect(clusters.codeOf('LEEDS')).toBe(49);
    expect(clusters.codeOf('Wakefield')).toBe(NO_CLUSTER);
  });

  it('gives the coarser clusters as prefixes of the leaf', () => {
    const friday = clusters.codeOf('friday');
    const tuesday = clusters.codeOf('tuesday');
    const lyon = clusters.codeOf('lyon');
    expect([1, 2, 3].map((level) => clusters.prefix(friday, level))).toEqual([0, 1, 6]);
    expect(clusters.prefix(friday, 2)).toBe(clusters.prefix(tuesday, 2));
    expect(clusters.prefix(friday, 3)).not.toBe(clusters.prefix(tuesday, 3));
    expect(clusters.prefix(lyon, 1)).toBe(3);
    expect(clusters.prefix(lyon, 1)).not.toBe(clusters.prefix(friday, 1));
    expect(clusters.prefix(NO_CLUSTER, 2)).toBe(NO_CLUSTER);
  });

  it('codes every token of a text', () => {
    expect(Array.from(clusters.codesOf(tokenize('Leeds on Friday')))).toEqual([49, NO_CLUSTER, 6]);
  });

  it('refuses a table whose columns differ', () => {
    expect(() => new WordClusters({ branching: 2, depth: 1, words: ['a'], codes: [] })).toThrow(/differ/);
  });
});
