import { sentenceFeatures } from './features';
import { tokenize } from './tokenizer';

describe('sentenceFeatures', () => {
  const noGazetteer = (n: number): [][] => Array.from({ length: n }, () => []);
  const features = (text: string, forgotten?: ReadonlyMap<number, number>): number[][] => {
    const tokens = tokenize(text);
    return sentenceFeatures(tokens, noGazetteer(tokens.length), forgotten);
  };

  it('forgets a word in every feature that names it and keeps its other features', () => {
    const text = 'We met Anna Berg today at noon';
    const kept = features(text);
    const forgot = features(text, new Map([[2, 12345]]));
    // The token itself: the word, the two word pairs and the word after the previous token's gazetteer lists differ; shape, affixes and case stay.
    const own = kept[2]!.filter((f) => !forgot[2]!.includes(f));
    expect(own.length).toBe(4);
    expect(forgot[2]!.length).toBe(kept[2]!.length);
    // Its neighbours two either side lose the features that name it; a token three away loses nothing.
    for (const i of [0, 1, 3, 4]) expect(kept[i]!.filter((f) => !forgot[i]!.includes(f)).length).toBeGreaterThan(0);
    expect(forgot[5]).toEqual(kept[5]);
    expect(features(text, new Map([[2, 12345]]))).toEqual(forgot);
  });

  it('makes a forgotten word look like a word never seen, whatever it was', () => {
    // "Anna" and "Zqxw" forgotten under the same stand-in give the same word features; their affixes still differ.
    const anna = features('We met Anna today', new Map([[2, 777]]))[2]!;
    const other = features('We met Zqxw today', new Map([[2, 777]]))[2]!;
    const plainAnna = features('We met Anna today')[2]!;
    const plainOther = features('We met Zqxw today')[2]!;
    expect(anna.filter((f) => other.includes(f)).length).toBeGreaterThan(plainAnna.filter((f) => plainOther.includes(f)).length);
    expect(anna).not.toEqual(other);
  });
});
