import { beginOf, LABEL_COUNT, LABELS, labelsFromSpans, OUTSIDE, spansFromLabels } from './labels';
import { tokenize } from './tokenizer';
import { viterbi, viterbi2 } from './viterbi';

const L = LABEL_COUNT;
const label = (name: string): number => LABELS.indexOf(name);

function emissions(rows: Record<string, number>[]): Float64Array {
  const e = new Float64Array(rows.length * L);
  rows.forEach((row, i) => {
    for (const [name, v] of Object.entries(row)) e[i * L + label(name)] = v;
  });
  return e;
}

describe('viterbi', () => {
  const zeroT = new Float64Array(L * L);
  const zeroS = new Float64Array(L);

  it('takes the best label per token when transitions are neutral', () => {
    const path = viterbi(emissions([{ 'B-PERSON': 2 }, { 'I-PERSON': 3 }, { O: 1 }]), 3, zeroT, zeroS);
    expect(path.map((y) => LABELS[y])).toEqual(['B-PERSON', 'I-PERSON', 'O']);
  });

  it('never starts a sentence or follows O with an I- label', () => {
    // I-PERSON scores best on its own at both places, but may not stand there.
    const path = viterbi(emissions([{ 'I-PERSON': 5, 'B-PERSON': 1 }, { O: 10 }, { 'I-LOCATION': 5, 'B-LOCATION': 2 }]), 3, zeroT, zeroS);
    expect(path.map((y) => LABELS[y])).toEqual(['B-PERSON', 'O', 'B-LOCATION']);
  });

  it('never continues one type with I- of another', () => {
    const path = viterbi(emissions([{ 'B-PERSON': 5 }, { 'I-LOCATION': 5, 'I-PERSON': 1 }]), 2, zeroT, zeroS);
    expect(path.map((y) => LABELS[y])).toEqual(['B-PERSON', 'I-PERSON']);
  });

  it('lets transition weights overrule a weak emission', () => {
    const t = new Float64Array(L * L);
    t[label('B-ORGANIZATION') * L + label('I-ORGANIZATION')] = 4;
    const path = viterbi(emissions([{ 'B-ORGANIZATION': 3 }, { O: 2, 'I-ORGANIZATION': 0 }]), 2, t, zeroS);
    expect(path.map((y) => LABELS[y])).toEqual(['B-ORGANIZATION', 'I-ORGANIZATION']);
  });

  it('returns an empty path for no tokens', () => {
    expect(viterbi(new Float64Array(0), 0, zeroT, zeroS)).toEqual([]);
  });
});

describe('BIO labels', () => {
  it('turns character spans into token labels and back', () => {
    const text = 'Anna Berg lives in New York.';
    const tokens = tokenize(text);
    const labels = labelsFromSpans(tokens, [
      { type: 'PERSON', start: 0, end: 9 },
      { type: 'LOCATION', start: 19, end: 27 },
    ]);
    expect(labels.map((y) => LABELS[y])).toEqual(['B-PERSON', 'I-PERSON', 'O', 'O', 'B-LOCATION', 'I-LOCATION', 'O']);
    expect(spansFromLabels(labels)).toEqual([
      { type: 'PERSON', from: 0, to: 2 },
      { type: 'LOCATION', from: 4, to: 6 },
    ]);
  });

  it('starts a new entity at each B- even right after one of the same type', () => {
    const b = beginOf('PERSON');
    expect(spansFromLabels([b, b, b + 1, OUTSIDE])).toEqual([
      { type: 'PERSON', from: 0, to: 1 },
      { type: 'PERSON', from: 1, to: 3 },
    ]);
  });
});

describe('viterbi2', () => {
  const zeroT = new Float64Array(L * L);
  const zeroS = new Float64Array(L);

  it("gives viterbi's path when second-order weights are zero", () => {
    // A seeded stream of emissions and first-order weights.
    let seed = 7;
    const next = (): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648 - 0.5;
    };
    for (let round = 0; round < 20; round++) {
      const n = 1 + (round % 9);
      const e = Float64Array.from({ length: n * L }, () => 4 * next());
      const t = Float64Array.from({ length: L * L }, () => 2 * next());
      const s = Float64Array.from({ length: L }, () => next());
      expect(viterbi2(e, n, t, s, new Float64Array(L * L * L))).toEqual(viterbi(e, n, t, s));
    }
  });

  it('lets a second-order weight overrule what the first order prefers', () => {
    const e = emissions([{ 'B-PERSON': 3 }, { 'I-PERSON': 3 }, { O: 1, 'I-PERSON': 0.5 }]);
    expect(viterbi2(e, 3, zeroT, zeroS, new Float64Array(L * L * L)).map((y) => LABELS[y])).toEqual(['B-PERSON', 'I-PERSON', 'O']);
    const t2 = new Float64Array(L * L * L);
    t2[(label('B-PERSON') * L + label('I-PERSON')) * L + label('I-PERSON')] = 1;
    expect(viterbi2(e, 3, zeroT, zeroS, t2).map((y) => LABELS[y])).toEqual(['B-PERSON', 'I-PERSON', 'I-PERSON']);
  });

  it('keeps the BIO constraints', () => {
    const t2 = new Float64Array(L * L * L).fill(0);
    const path = viterbi2(emissions([{ 'I-PERSON': 5, 'B-PERSON': 1 }, { O: 10 }, { 'I-LOCATION': 5, 'B-LOCATION': 2 }, { O: 1 }]), 4, zeroT, zeroS, t2);
    expect(path.map((y) => LABELS[y])).toEqual(['B-PERSON', 'O', 'B-LOCATION', 'O']);
  });
});
