/** The entity types the offline tagger finds (Data Shield L3, spec 4.17). */
export type NerEntityType = 'PERSON' | 'LOCATION' | 'ORGANIZATION' | 'NRP' | 'DATE_TIME';

export const NER_ENTITY_TYPES: readonly NerEntityType[] = ['PERSON', 'LOCATION', 'ORGANIZATION', 'NRP', 'DATE_TIME'];

/** One entity found in a text: `end` is exclusive; offsets are UTF-16 code units into the input, as String#slice takes them. */
export interface NerSpan {
  type: NerEntityType;
  start: number;
  end: number;
  /** Confidence in [0, 1]: a squashed decision margin, comparable between spans of one model, not a calibrated probability. */
  score: number;
}

export interface NerTagger {
  tag(text: string): NerSpan[];
}
