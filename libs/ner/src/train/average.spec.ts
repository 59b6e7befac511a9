import { LABEL_COUNT, LABELS } from '../labels';
import type { NerModelFile } from '../model';
import { averageModelFiles } from './average';

const L = LABEL_COUNT;

function model(features: number[], transition: number, overrides: Partial<NerModelFile> = {}): NerModelFile {
  return {
    format: 'docflow-ner/2',
    labels: [...LABELS],
    scale: 0.1,
    transitions: new Array<number>(L * L).fill(transition),
    start: new Array<number>(L).fill(transition * 2),
    features,
    gazetteers: { city: ['oslo'] },
    meta: {},
    ...overrides,
  };
}

describe('averageModelFiles', () => {
  it('takes the mean of every weight, a feature missing from a model counting as zero there', () => {
    // Feature 5: label 1 weight 30 in both, label 2 weight 10 in the second only. Feature 9: the first model only.
    const a = model([5, 1, 1, 30, 9, 1, 3, 40], 4);
    const b = model([5, 2, 1, 30, 2, 10], 8);
    const mean = averageModelFiles([a, b], 0, { seeds: '1,2' });
    expect(mean.features).toEqual([5, 2, 1, 30, 2, 5, 9, 1, 3, 20]);
    expect(mean.transitions).toEqual(new Array<number>(L * L).fill(6));
    expect(mean.start).toEqual(new Array<number>(L).fill(12));
    expect(mean.meta).toEqual({ seeds: '1,2' });
    expect(mean.gazetteers).toEqual(a.gazetteers);
  });

  it('leaves out features whose largest mean weight is below prune, in weight units (quantised value × scale)', () => {
    // Feature 9's mean is 20 × 0.1 = 2.0; feature 5's is 15 × 0.1 = 1.5.
    const a = model([5, 1, 1, 30, 9, 1, 3, 40], 0);
    const b = model([9, 1, 3, 0], 0);
    expect(averageModelFiles([a, b], 1.6, {}).features).toEqual([9, 1, 3, 20]);
  });

  it('refuses models of different scales or gazetteers', () => {
    expect(() => averageModelFiles([model([], 0), model([], 0, { scale: 0.2 })], 0, {})).toThrow(/scale/);
    expect(() => averageModelFiles([model([], 0), model([], 0, { gazetteers: { city: ['lima'] } })], 0, {})).toThrow(/gazetteers/);
    expect(() => averageModelFiles([], 0, {})).toThrow(/at least one/);
  });
});
