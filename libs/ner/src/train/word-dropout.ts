import type { Rng } from './rng';

/**
 * Word dropout: which of a sentence's `count` tokens training forgets, each
 * with probability `rate`, and the random number that stands for each
 * forgotten word (see sentenceFeatureRows). Drawn from `rng`, so a seed
 * gives the same choices.
 */
export function forgottenWords(count: number, rate: number, rng: Rng): Map<number, number> {
  const out = new Map<number, number>();
  if (rate <= 0) return out;
  for (let i = 0; i < count; i++) if (rng.chance(rate)) out.set(i, rng.int(2 ** 32));
  return out;
}
