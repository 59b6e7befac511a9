import { contentTokens, termFrequencies } from './text';

export const LOCAL_EMBEDDING_DIMENSIONS = 256;

/** 32-bit FNV-1a. */
function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/**
 * A deterministic hashed bag of words: each stemmed content word adds
 * log(1 + count) to one of 256 dimensions chosen by its FNV-1a hash, with a
 * sign from another bit of the hash; the vector is L2-normalised (all zeros
 * for a text without content words). Texts sharing words score a positive
 * cosine; it carries no meaning beyond word overlap.
 */
export function hashedEmbedding(text: string, dimensions = LOCAL_EMBEDDING_DIMENSIONS): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  for (const [token, count] of termFrequencies(contentTokens(text))) {
    const h = fnv1a(token);
    const sign = (h >>> 31) & 1 ? -1 : 1;
    const index = h % dimensions;
    vector[index] = (vector[index] ?? 0) + sign * Math.log(1 + count);
  }
  const norm = Math.sqrt(vector.reduce((sum, v) => sum + v * v, 0));
  return norm === 0 ? vector : vector.map((v) => Math.round((v / norm) * 1e6) / 1e6);
}
