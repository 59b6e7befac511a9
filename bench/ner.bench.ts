// The offline named-entity tagger (libs/ner) on the Data Shield dev set.
//
// Reads ../shared/eval/pii-dev-sentences.json and maps its entity names as
// that folder's README says: PERSON → PERSON; GPE and STREET_ADDRESS →
// LOCATION; ORGANIZATION; NRP; DATE_TIME. Every other entity is left out.
// Prints, per type: precision, recall and F2 (beta 2), strict (same type,
// start and end) and lenient (overlap of the same type); then the time per
// sentence (p50/p99, and per 100 characters) and the model's size.
//
// BENCH_NER_MODEL=<file.json.gz> scores another model file than the shipped one.
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { loadNerTagger, NER_ENTITY_TYPES, type NerTagger } from '@docflow/ner';
import { modelCandidates, readNerModel } from '../libs/ner/src/load';
import { PerceptronTagger } from '../libs/ner/src/tagger';
import { addCounts, scoreRows, type CountsByType, type TypedSpan } from '../libs/ner/src/train/evaluate';
import { report, summarize } from './support';

const ROOT = path.resolve(__dirname, '..', '..');
const DEV = path.resolve(ROOT, '..', 'shared', 'eval', 'pii-dev-sentences.json');
const ROUNDS = Number(process.env.BENCH_NER_ROUNDS ?? 5);
const TYPE_MAP: Record<string, string> = {
  PERSON: 'PERSON',
  GPE: 'LOCATION',
  STREET_ADDRESS: 'LOCATION',
  ORGANIZATION: 'ORGANIZATION',
  NRP: 'NRP',
  DATE_TIME: 'DATE_TIME',
};

interface DevRecord {
  full_text: string;
  spans: { entity_type: string; start_position: number; end_position: number }[];
}

function main(): void {
  if (!existsSync(DEV)) throw new Error(`dev set not found at ${DEV}`);
  const records = JSON.parse(readFileSync(DEV, 'utf8')) as DevRecord[];
  const modelFile = process.env.BENCH_NER_MODEL ?? modelCandidates().find((f) => existsSync(f))!;

  const loadStart = performance.now();
  const tagger: NerTagger = process.env.BENCH_NER_MODEL ? new PerceptronTagger(readNerModel(modelFile)) : loadNerTagger();
  const loadMs = performance.now() - loadStart;

  const counts: CountsByType = {};
  for (const r of records) {
    const gold: TypedSpan[] = r.spans.filter((s) => TYPE_MAP[s.entity_type]).map((s) => ({ type: TYPE_MAP[s.entity_type]!, start: s.start_position, end: s.end_position }));
    addCounts(counts, gold, tagger.tag(r.full_text), NER_ENTITY_TYPES);
  }
  console.log(`${records.length} sentences from ${path.relative(process.cwd(), DEV)}`);
  const rows = scoreRows(counts);

  // Speed: every sentence ROUNDS times, after one warm-up pass.
  for (const r of records) tagger.tag(r.full_text);
  const perSentence: number[] = [];
  const per100: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (const r of records) {
      const t0 = performance.now();
      tagger.tag(r.full_text);
      const ms = performance.now() - t0;
      perSentence.push(ms);
      per100.push((ms * 100) / Math.max(1, r.full_text.length));
    }
  }
  const s = summarize(perSentence);
  const h = summarize(per100);
  const sizeKiB = statSync(modelFile).size / 1024;
  const speed = {
    sentences: s.n,
    mean_chars: Math.round(records.reduce((a, r) => a + r.full_text.length, 0) / records.length),
    p50_ms_per_sentence: round3(s.p50),
    p99_ms_per_sentence: round3(s.p99),
    p50_ms_per_100_chars: round3(h.p50),
    p99_ms_per_100_chars: round3(h.p99),
    model_kib_gzipped: Math.round(sizeKiB),
    load_ms: Math.round(loadMs),
  };
  report('ner', rows, { speed, model: path.relative(ROOT, modelFile) });
  console.table([speed]);
}

const round3 = (v: number): number => Math.round(v * 1000) / 1000;

main();
