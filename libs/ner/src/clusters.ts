import type { Token } from './tokenizer';

/**
 * Word clusters: each word of a vocabulary sits in a leaf of a tree of
 * clusters (`branching` children per node, `depth` levels), and its code is
 * the leaf's number, read in base `branching` from the root down, so that the
 * code's first digits name the coarser clusters that hold it (like the bit
 * prefixes of Brown clusters). Words that are used alike ("Tuesday" and
 * "Friday", "Smith" and "Jones", "Leeds" and "Lyon") share clusters; the
 * tagger uses a token's clusters and its neighbours' as features, which
 * carries what training saw of one word to the words of its cluster that
 * training never saw. The table is built offline from word embeddings
 * (`npm run ner:clusters`, train/clusters-main.ts) and ships in the model.
 */
export interface WordClusterTable {
  branching: number;
  depth: number;
  /** Lower-case words, sorted. */
  words: string[];
  /** codes[i] is words[i]'s leaf, 0 ≤ code < branching ** depth. */
  codes: number[];
  source?: string;
}

/** A token outside the vocabulary. */
export const NO_CLUSTER = -1;

export class WordClusters {
  private readonly byWord = new Map<string, number>();
  readonly branching: number;
  readonly depth: number;

  constructor(table: WordClusterTable) {
    if (table.words.length !== table.codes.length) throw new Error('word cluster table: words and codes differ in length');
    this.branching = table.branching;
    this.depth = table.depth;
    table.words.forEach((w, i) => this.byWord.set(w, table.codes[i]!));
  }

  /** The leaf of a word in any case, or NO_CLUSTER. */
  codeOf(word: string): number {
    return this.byWord.get(word.toLowerCase()) ?? NO_CLUSTER;
  }

  codesOf(tokens: readonly Token[]): Int32Array {
    const out = new Int32Array(tokens.length);
    for (let i = 0; i < tokens.length; i++) out[i] = this.codeOf(tokens[i]!.text);
    return out;
  }

  /**
   * The cluster at `level` (1 = the root's children, depth = the leaf) that
   * holds a leaf code, numbered apart from every other level's; NO_CLUSTER stays NO_CLUSTER.
   */
  prefix(code: number, level: number): number {
    if (code < 0) return NO_CLUSTER;
    return Math.floor(code / this.branching ** (this.depth - level));
  }
}
