import { sentenceFeatures } from '../features';
import { Gazetteer, normaliseLists } from '../gazetteer';
import { LABEL_COUNT, labelsFromSpans, type CharSpan } from '../labels';
import { PerceptronTagger } from '../tagger';
import { tokenize } from '../tokenizer';
import { serialise, toModelFile } from './export';
import { trainPerceptron, type FeaturizedSentence } from './perceptron';

// A corpus small enough to read: people, cities and firms in fixed frames.
const LISTS = normaliseLists({ first: ['Anna', 'Omar', 'Lena'], city: ['Oslo', 'Lima', 'Porto'] });
const FRAMES: [string, CharSpan['type']][] = [
  ['I met {} today.', 'PERSON'],
  ['She flew to {} yesterday.', 'LOCATION'],
  ['He works for {} now.', 'ORGANIZATION'],
];
const VALUES: Record<string, string[]> = {
  PERSON: ['Anna', 'Omar Haddad', 'Lena Berg'],
  LOCATION: ['Oslo', 'Lima', 'Porto'],
  ORGANIZATION: ['Acme Inc.', 'Globex Ltd', 'Initech'],
};

function corpus(): { text: string; spans: CharSpan[] }[] {
  return FRAMES.flatMap(([frame, type]) =>
    VALUES[type]!.map((value) => {
      const start = frame.indexOf('{}');
      return { text: frame.replace('{}', value), spans: [{ type, start, end: start + value.length }] };
    }),
  );
}

function featurized(): FeaturizedSentence[] {
  const gazetteer = new Gazetteer(LISTS);
  return corpus().map(({ text, spans }) => {
    const tokens = tokenize(text);
    return { features: sentenceFeatures(tokens, gazetteer.match(tokens)), labels: labelsFromSpans(tokens, spans) };
  });
}

describe('trainPerceptron', () => {
  const options = { epochs: 8, seed: 5, minCount: 1 };

  it('gives identical weights and identical model bytes for the same seed', () => {
    const a = trainPerceptron(featurized(), options);
    const b = trainPerceptron(featurized(), options);
    expect(a.featureHashes).toEqual(b.featureHashes);
    expect(Array.from(a.weights)).toEqual(Array.from(b.weights));
    expect(Array.from(a.transitions)).toEqual(Array.from(b.transitions));
    const bytesA = serialise(toModelFile(a, LISTS, 0.01, { seed: 5 }));
    const bytesB = serialise(toModelFile(b, LISTS, 0.01, { seed: 5 }));
    expect(bytesA.equals(bytesB)).toBe(true);
  });

  it('learns its training sentences, and the tagger reads the exported model', () => {
    const model = toModelFile(trainPerceptron(featurized(), options), LISTS, 0.01, { seed: 5, marginScale: 1 });
    const tagger = new PerceptronTagger(model);
    for (const { text, spans } of corpus()) {
      expect(tagger.tag(text).map(({ type, start, end }) => ({ type, start, end }))).toEqual(spans);
    }
  });

  it('learns second-order transitions when asked, exports them, and the tagger decodes with them', () => {
    const trained = trainPerceptron(featurized(), { ...options, secondOrder: true });
    expect(trained.transitions2?.length).toBe(LABEL_COUNT ** 3);
    expect(trainPerceptron(featurized(), options).transitions2).toBeUndefined();
    const model = toModelFile(trained, LISTS, 0.01, { seed: 5, marginScale: 1 });
    expect(model.transitions2?.length).toBe(LABEL_COUNT ** 3);
    const tagger = new PerceptronTagger(model);
    for (const { text, spans } of corpus()) {
      expect(tagger.tag(text).map(({ type, start, end }) => ({ type, start, end }))).toEqual(spans);
    }
  });

  it('drops features seen fewer than minCount times', () => {
    const all = trainPerceptron(featurized(), { ...options, epochs: 1 });
    const frequent = trainPerceptron(featurized(), { ...options, epochs: 1, minCount: 3 });
    expect(frequent.featureHashes.length).toBeLessThan(all.featureHashes.length);
    expect(frequent.featureHashes).toContain(1); // the bias, on every token
  });
});
