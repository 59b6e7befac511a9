/**
 * npm run train:ner [-- --seeds 13 --sentences 70000 --epochs 8 --holdout-templates]
 *
 * Generates labelled sentences from our templates and faker, trains the
 * averaged perceptron, prints scores on a generated held-out set and writes
 * libs/ner/model/ner-model.json.gz. The same seeds give the same bytes.
 * --seeds a,b,c (default 13, one seed) trains one model per seed, each on its
 * own generated corpus, and ships the mean of their weights (see
 * averageModelFiles); the held-out sentences are the first seed's.
 * --seed n trains that one seed's model alone (what --seeds does per seed).
 * --holdout-templates keeps every eighth template of each group out of
 * training and scores on those alone: the honest way to tune templates and
 * features without looking at the dev set.
 * --evaluate <model file> trains nothing: it generates the same sentences
 * and scores that model on the held-out ones, to judge a decoding change
 * on a model already trained with the same options.
 * --average a.json.gz,b.json.gz trains nothing either: it averages those
 * model files (as --seeds does) and scores the result.
 * --second-order also learns transitions over the two previous labels
 * (decoded by viterbi2; the model file gains transitions2).
 * --word-dropout p forgets each training token's word with probability p
 * (see sentenceFeatureRows), so that the tagger learns to decide from
 * context, shape, affixes and gazetteers rather than from the names it saw.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { sentenceFeatures } from '../features';
import { Gazetteer, normaliseLists } from '../gazetteer';
import { OUTSIDE } from '../labels';
import { MODEL_FILE_NAME } from '../load';
import { readNerModel } from '../load';
import { NerWeights, type NerModelFile } from '../model';
import { PerceptronTagger, typeMargin } from '../tagger';
import { NER_ENTITY_TYPES } from '../types';
import { generateCorpus } from './corpus';
import { averageModelFiles } from './average';
import { addCounts, scoreRows, type CountsByType } from './evaluate';
import { serialise, toModelFile } from './export';
import { buildGazetteers } from './gazetteer-data';
import { loadLocales } from './locales';
import { trainPerceptron } from './perceptron';
import { Rng } from './rng';
import { forgottenWords } from './word-dropout';

const { values: args } = parseArgs({
  options: {
    seed: { type: 'string' },
    seeds: { type: 'string', default: '13' },
    sentences: { type: 'string', default: '70000' },
    heldout: { type: 'string', default: '3000' },
    epochs: { type: 'string', default: '8' },
    'min-count': { type: 'string', default: '2' },
    dropout: { type: 'string', default: '0.3' },
    scale: { type: 'string', default: '0.1' },
    prune: { type: 'string', default: '1' },
    'holdout-templates': { type: 'boolean', default: false },
    'show-errors': { type: 'string', default: '0' },
    out: { type: 'string' },
    evaluate: { type: 'string' },
    'word-dropout': { type: 'string', default: '0' },
    average: { type: 'string' },
    'second-order': { type: 'boolean', default: false },
  },
});

const seeds = args.seed !== undefined ? [Number(args.seed)] : args.seeds.split(',').map(Number);
if (!seeds.length || seeds.some((s) => !Number.isInteger(s))) throw new Error(`--seeds wants integers, got ${args.seeds}`);
const root = path.resolve(__dirname, '..', '..');
const out = args.out ?? path.join(root, 'libs', 'ner', 'model', MODEL_FILE_NAME);
const started = Date.now();
const log = (line: string): void => console.log(`[${((Date.now() - started) / 1000).toFixed(1)} s] ${line}`);

// Fillers draw values from the raw lists; the model ships them normalised.
const rawGazetteers = buildGazetteers();
const gazetteers = normaliseLists(rawGazetteers);
const gazetteer = new Gazetteer(gazetteers);
log(
  `gazetteers: ${Object.entries(gazetteers)
    .map(([k, v]) => `${k} ${v.length}`)
    .join(', ')}`,
);

const heldOutOnly = args['holdout-templates'];
type Sentences = ReturnType<typeof generateCorpus>;

/** One seed's training and held-out sentences, drawn in this order from that seed's generators. */
function corpora(seed: number): { train: Sentences; heldOut: Sentences } {
  const locales = loadLocales(seed);
  const en = locales.find((l) => l.code === 'EN')!.faker;
  const ctx = { rng: new Rng(seed), locales, en, gazetteers: rawGazetteers };
  const train = generateCorpus(ctx, gazetteer, {
    count: Number(args.sentences),
    seed,
    gazetteerDropout: Number(args.dropout),
    useTemplate: (i) => !heldOutOnly || i % 8 !== 7,
  });
  const heldOut = generateCorpus(ctx, gazetteer, {
    count: Number(args.heldout),
    seed: seed + 1,
    gazetteerDropout: 0,
    useTemplate: (i) => !heldOutOnly || i % 8 === 7,
  });
  log(`seed ${seed}: generated ${train.length} training and ${heldOut.length} held-out sentences`);
  return { train, heldOut };
}

const first = corpora(seeds[0]!);
const heldOut = first.heldOut;

const model = args.evaluate ? readNerModel(args.evaluate) : args.average ? averageAndWrite(args.average.split(',').map((f) => readNerModel(f))) : trainAll();

/** Each seed's model (the first seed's corpus is already drawn), then their mean when there are several. */
function trainAll(): NerModelFile {
  if (seeds.length === 1) return write(trainOne(seeds[0]!, first.train));
  const models = seeds.map((seed, i) => trainOne(seed, i === 0 ? first.train : corpora(seed).train));
  return averageAndWrite(models);
}

/** --average a.json.gz,b.json.gz,...: one model of the mean weights (see averageModelFiles), scored like a trained one. */
function averageAndWrite(models: NerModelFile[]): NerModelFile {
  const meta = {
    averageOf: models.map((m) => String(m.meta['seed'])).join(','),
    sentences: Number(models[0]!.meta['sentences']),
    epochs: Number(models[0]!.meta['epochs']),
    wordDropout: Number(models[0]!.meta['wordDropout'] ?? 0),
    marginScale: 1,
  };
  const file = averageModelFiles(models, Number(args.prune), meta);
  meta.marginScale = medianEntityMargin(new NerWeights(file), heldOut);
  return write({ ...file, meta });
}

function write(file: NerModelFile): NerModelFile {
  const bytes = serialise(file);
  writeFileSync(out, bytes);
  log(`wrote ${path.relative(process.cwd(), out)}: ${countFeatures(file.features)} features, ${(bytes.length / 1024).toFixed(0)} KiB gzipped`);
  return file;
}

/** One seed's model, as a shipped file (its marginScale measured on the first seed's held-out sentences). */
function trainOne(seed: number, train: Sentences): NerModelFile {
  // Word dropout: each token's word is forgotten with this probability (see sentenceFeatureRows).
  const wordDropout = Number(args['word-dropout']);
  const dropRng = new Rng(seed + 2);
  const trained = trainPerceptron(
    (function* () {
      for (const s of train) yield { features: sentenceFeatures(s.tokens, s.hits, forgottenWords(s.tokens.length, wordDropout, dropRng)), labels: s.labels };
    })(),
    { epochs: Number(args.epochs), seed, minCount: Number(args['min-count']), secondOrder: args['second-order'], log },
  );

  const meta: Record<string, number> = { seed, sentences: train.length, epochs: Number(args.epochs), wordDropout, marginScale: 1 };
  // Recorded only when on, so that a first-order model's bytes stay as they were.
  if (args['second-order']) meta['secondOrder'] = 1;
  const file = toModelFile(trained, gazetteers, Number(args.scale), meta, Number(args.prune));
  meta.marginScale = medianEntityMargin(new NerWeights(file), heldOut);
  return toModelFile(trained, gazetteers, Number(args.scale), meta, Number(args.prune));
}

const tagger = new PerceptronTagger(model);
const counts: CountsByType = {};
let shown = 0;
for (const s of heldOut) {
  const predicted = tagger.tag(s.text);
  addCounts(counts, s.spans, predicted, NER_ENTITY_TYPES);
  // --show-errors N: held-out sentences the model gets wrong, to tune templates and features on.
  const key = (x: { type: string; start: number; end: number }): string => `${x.type}:${s.text.slice(x.start, x.end)}`;
  const gold = s.spans.map(key).sort().join(' | ');
  const got = predicted.map(key).sort().join(' | ');
  if (gold !== got && shown++ < Number(args['show-errors'])) console.log(`${JSON.stringify(s.text)}\n  gold: ${gold}\n  got:  ${got}`);
}
console.log(heldOutOnly ? 'held-out templates:' : 'held-out sentences (same templates, other seed):');
console.table(scoreRows(counts));

/** The median type margin of entity tokens: it scales span confidences so that such a token scores about 0.82. */
function medianEntityMargin(weights: NerWeights, sentences: typeof heldOut): number {
  const margins: number[] = [];
  for (const s of sentences.slice(0, 500)) {
    const e = weights.emissions(sentenceFeatures(s.tokens, s.hits));
    s.labels.forEach((label, i) => {
      if (label === OUTSIDE) return;
      const m = typeMargin(e, i, label, i === 0 ? -1 : s.labels[i - 1]!);
      if (m > 0) margins.push(m);
    });
  }
  margins.sort((a, b) => a - b);
  return Math.round((margins[margins.length >> 1] ?? 1) * 100) / 100;
}

function countFeatures(flat: readonly number[]): number {
  let n = 0;
  for (let p = 0; p < flat.length; p += 2 + 2 * flat[p + 1]!) n++;
  return n;
}
