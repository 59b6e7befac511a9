import { CapitalisedWordHeuristic, type NamedEntityRecognizer } from './named-entities';

/**
 * The tagger every Data Shield engine uses unless given another. Until the
 * offline tagger of `libs/ner` is wired in here (`loadNerTagger()` has the
 * NamedEntityRecognizer shape), this is the capitalised-word heuristic.
 */
export function defaultNamedEntityRecognizer(): NamedEntityRecognizer {
  return new CapitalisedWordHeuristic();
}
