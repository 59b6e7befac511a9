export type { NerEntityType, NerSpan, NerTagger } from './types';
export { NER_ENTITY_TYPES } from './types';
export { loadNerTagger } from './load';
