import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { NerModelFile } from './model';
import { PerceptronTagger } from './tagger';
import type { NerTagger } from './types';

export const MODEL_FILE_NAME = 'ner-model.json.gz';

/**
 * Where the shipped model may be: next to the running bundle (scripts/build.mjs
 * copies it into dist/apps/<app>/), else libs/ner/model/ of the checkout the
 * code runs from (tests, benchmarks, training).
 */
export function modelCandidates(from: string = __dirname): string[] {
  const out = [path.join(from, MODEL_FILE_NAME)];
  for (let dir = from; ; dir = path.dirname(dir)) {
    out.push(path.join(dir, 'libs', 'ner', 'model', MODEL_FILE_NAME));
    if (path.dirname(dir) === dir) break;
  }
  return out;
}

export function readNerModel(file: string): NerModelFile {
  return JSON.parse(gunzipSync(readFileSync(file)).toString('utf8')) as NerModelFile;
}

let cached: NerTagger | undefined;

/**
 * The shipped tagger, loaded once per process (about 100 ms; later calls are
 * free). Synchronous so that a service can load it while it boots. Throws if
 * the model file is missing: Data Shield must fail closed, not tag nothing.
 */
export function loadNerTagger(): NerTagger {
  if (cached) return cached;
  const file = modelCandidates().find((f) => existsSync(f));
  if (!file) throw new Error(`NER model ${MODEL_FILE_NAME} not found (looked in ${modelCandidates().join(', ')})`);
  cached = new PerceptronTagger(readNerModel(file));
  return cached;
}
