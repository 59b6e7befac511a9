/**
 * npm run train:ner [-- --seed 7 --sentences 70000 --epochs 8 --holdout-templates]
 *
 * Generates labelled sentences from our templates and faker, trains the
 * averaged perceptron, prints scores on a generated held-out set and writes
 * libs/ner/model/ner-model.json.gz. The same seed gives the same bytes.
 * --holdout-templates keeps every eighth template of each group out of
 * training and scores on those alone: the honest way to tune templates and
 * features without looking at the dev set.
 * --evaluate <model file> trains nothing: it generates the same sentences
 * and scores that model on the held-out ones, to judge a decoding change
 * on a model already trained with the same options.
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
    seed: { type: 'string', default: '13' },
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
  },
});

const seed = Number(args.seed);
const root = path.resolve(__dirname, '..', '..');
const out = args.out ?? path.join(root, 'libs', 'ner', 'model', MODEL_FILE_NAME);
const started = Date.now();
const log = (line: string): void => console.log(`[${((Date.now() - started) / 1000).toFixed(1)} s] ${line}`);

// Fillers draw values from the raw lists; the model ships them normalised.
const rawGazetteers = buildGazetteers();
const gazetteers = normaliseLists(rawGazetteers);
const gazetteer = new Gazetteer(gazetteers);
const locales = loadLocales(seed);
const en = locales.find((l) => l.code === 'EN')!.faker;
const ctx = { rng: new Rng(seed), locales, en, gazetteers: rawGazetteers };
log(
  `gazetteers: ${Object.entries(gazetteers)
    .map(([k, v]) => `${k} ${v.length}`)
    .join(', ')}`,
);

const heldOutOnly = args['holdout-templates'];
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
log(`generated ${train.length} training and ${heldOut.length} held-out sentences`);

const model = args.evaluate ? readNerModel(args.evaluate) : args.average ? averageAndWrite(args.average.split(',')) : trainAndWrite();

/** --average a.json.gz,b.json.gz,...: one model of the mean weights (see averageModelFiles), scored like a trained one. */
function averageAndWrite(files: string[]): NerModelFile {
  const models = files.map((f) => readNerModel(f));
  const meta = { averageOf: models.map((m) => String(m.meta['seed'])).join(','), sentences: train.length, epochs: Number(args.epochs), marginScale: 1 };
  let file = averageModelFiles(models, Number(args.prune), meta);
  meta.marginScale = medianEntityMargin(new NerWeights(file), heldOut);
  file = { ...file, meta };
  const bytes = serialise(file);
  writeFileSync(out, bytes);
  log(`wrote ${path.relative(process.cwd(), out)}: ${countFeatures(file.features)} features, ${(bytes.length / 1024).toFixed(0)} KiB gzipped`);
  return file;
}

function trainAndWrite(): NerModelFile {
  // Word dropout: each token's word is forgotten with this probability (see sentenceFeatureRows).
  const wordDropout = Number(args['word-dropout']);
  const dropRng = new Rng(seed + 2);
  const trained = trainPerceptron(
    (function* () {
      for (const s of train) yield { features: sentenceFeatures(s.tokens, s.hits, forgottenWords(s.tokens.length, wordDropout, dropRng)), labels: s.labels };
    })(),
    { epochs: Number(args.epochs), seed, minCount: Number(args['min-count']), log },
  );

  const meta = { seed, sentences: train.length, epochs: Number(args.epochs), wordDropout, marginScale: 1 };
  let file = toModelFile(trained, gazetteers, Number(args.scale), meta, Number(args.prune));
  meta.marginScale = medianEntityMargin(new NerWeights(file), heldOut);
  file = toModelFile(trained, gazetteers, Number(args.scale), meta, Number(args.prune));

  const bytes = serialise(file);
  writeFileSync(out, bytes);
  log(`wrote ${path.relative(process.cwd(), out)}: ${countFeatures(file.features)} features, ${(bytes.length / 1024).toFixed(0)} KiB gzipped`);
  return file;
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
