import { loadNerTagger } from '@docflow/ner';
import type { NamedEntityRecognizer } from './named-entities';

/**
 * The tagger every Data Shield engine uses unless given another: the offline
 * averaged-perceptron tagger of `libs/ner` (PERSON, LOCATION, ORGANIZATION,
 * NRP, DATE_TIME). Loading throws when the model file is missing, so a
 * service without it fails closed instead of shielding names with nothing.
 */
export function defaultNamedEntityRecognizer(): NamedEntityRecognizer {
  return loadNerTagger();
}
