import { WordClusters } from './clusters';
import { sentenceFeatures } from './features';
import { tokenize } from './tokenizer';

describe('sentenceFeatures', () => {
  // branching 4, depth 3: "leeds" and "lyon" share their two coarser clusters, "friday" shares none with them.
  const clusters = new WordClusters({ branching: 4, depth: 3, words: ['friday', 'leeds', 'lyon'], codes: [6, 49, 51] });
  const noGazetteer = (n: number): [][] => Array.from({ length: n }, () => []);
  const features = (text: string, withClusters?: WordClusters, forgotten?: ReadonlyMap<number, number>): number[][] => {
    const tokens = tokenize(text);
    return sentenceFeatures(tokens, noGazetteer(tokens.length), withClusters, forgotten);
  };
  const shared = (a: readonly number[], b: readonly number[]): number => a.filter((f) => b.includes(f)).length;

  it('adds eight cluster features per token when the model has a cluster table', () => {
    const plain = features('We met in Leeds today');
    const clustered = features('We met in Leeds today', clusters);
    clustered.forEach((row, i) => {
      expect(row.slice(0, plain[i]!.length)).toEqual(plain[i]);
      expect(row.length - plain[i]!.length).toBe(8);
    });
  });

  it('gives words of one cluster the same cluster features, and words of other clusters other ones', () => {
    const leeds = features('in Leeds .', clusters)[1]!;
    const lyon = features('in Lyon .', clusters)[1]!;
    const friday = features('in Friday .', clusters)[1]!;
    const plainLeeds = features('in Leeds .')[1]!;
    const plainLyon = features('in Lyon .')[1]!;
    // Leeds and Lyon share the two coarser clusters (and those with the case), not the leaf.
    expect(shared(leeds, lyon) - shared(plainLeeds, plainLyon)).toBe(3 + 4);
    expect(shared(leeds, friday)).toBeLessThan(shared(leeds, lyon));
  });

  it('lets a neighbour’s cluster reach a word outside the table', () => {
    const afterLeeds = features('Leeds Zqx', clusters)[1]!;
    const afterLyon = features('Lyon Zqx', clusters)[1]!;
    const afterFriday = features('Friday Zqx', clusters)[1]!;
    expect(shared(afterLeeds, afterLyon)).toBeGreaterThan(shared(afterLeeds, afterFriday));
  });

  it('forgets a word in every feature that names it and keeps its other features', () => {
    const text = 'We met Anna Berg today at noon';
    const kept = features(text, clusters);
    const forgot = features(text, clusters, new Map([[2, 12345]]));
    // The token itself: word, two word pairs and the word with the neighbours' gazetteer lists differ.
    const own = kept[2]!.filter((f) => !forgot[2]!.includes(f));
    expect(own.length).toBe(4);
    expect(forgot[2]!.length).toBe(kept[2]!.length);
    // Its neighbours lose the features that name it; tokens three away lose nothing.
    expect(kept[1]!.filter((f) => !forgot[1]!.includes(f)).length).toBeGreaterThan(0);
    expect(kept[3]!.filter((f) => !forgot[3]!.includes(f)).length).toBeGreaterThan(0);
    expect(forgot[5]).toEqual(kept[5]);
    expect(features(text, clusters, new Map([[2, 12345]]))).toEqual(forgot);
  });
});
