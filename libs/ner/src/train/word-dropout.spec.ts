import { forgottenWords } from './word-dropout';
import { Rng } from './rng';

describe('forgottenWords (word dropout)', () => {
  it('forgets about the given share of tokens, each under its own stand-in, the same for the same seed', () => {
    const forgotten = forgottenWords(10000, 0.15, new Rng(13));
    expect(forgotten.size).toBeGreaterThan(1350);
    expect(forgotten.size).toBeLessThan(1650);
    expect(new Set(forgotten.values()).size).toBeGreaterThan(forgotten.size - 5);
    for (const i of forgotten.keys()) expect(i >= 0 && i < 10000).toBe(true);
    expect(forgottenWords(10000, 0.15, new Rng(13))).toEqual(forgotten);
    expect(forgottenWords(10000, 0.15, new Rng(7))).not.toEqual(forgotten);
  });

  it('forgets nothing and draws nothing at rate 0', () => {
    const rng = new Rng(5);
    expect(forgottenWords(50, 0, rng).size).toBe(0);
    expect(rng.next()).toBe(new Rng(5).next());
  });
});
