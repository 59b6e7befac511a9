import type { GazetteerLists } from '../gazetteer';
import { Gazetteer, type GazetteerHit } from '../gazetteer';
import { labelsFromSpans } from '../labels';
import { tokenize, type Token } from '../tokenizer';
import type { FillContext } from './fillers';
import { render, type LabelledText } from './generate';
import { Rng } from './rng';
import { DATE_TEMPLATES } from './templates/dates';
import { MIXED_TEMPLATES } from './templates/mixed';
import { NARRATIVE_TEMPLATES } from './templates/narrative';
import { NEGATIVE_TEMPLATES } from './templates/negatives';
import { ORG_TEMPLATES } from './templates/organisations';
import { PEOPLE_TEMPLATES } from './templates/people';
import { PLACE_TEMPLATES } from './templates/places';

/** Every template, with the share of sentences its group gets. */
export const TEMPLATE_GROUPS: readonly { name: string; weight: number; templates: readonly string[] }[] = [
  { name: 'people', weight: 0.22, templates: PEOPLE_TEMPLATES },
  { name: 'places', weight: 0.17, templates: PLACE_TEMPLATES },
  { name: 'organisations', weight: 0.17, templates: ORG_TEMPLATES },
  { name: 'dates', weight: 0.07, templates: DATE_TEMPLATES },
  { name: 'mixed', weight: 0.14, templates: MIXED_TEMPLATES },
  { name: 'narrative', weight: 0.13, templates: NARRATIVE_TEMPLATES },
  { name: 'negatives', weight: 0.1, templates: NEGATIVE_TEMPLATES },
];

/**
 * Lists whose hits training drops at random, so that names outside them are
 * still found, with the share of the dropout each gets. Names of people,
 * towns, states and firms are open sets: the lists never hold them all.
 * Countries and nationalities are nearly closed sets, so their hits are
 * dropped less often, and the tagger trusts them more (with the full rate a
 * listed country after a verb, "after leaving Kuwait", came out as a PERSON).
 */
const DROPOUT_SHARE: Readonly<Record<string, number>> = { first: 1, last: 1, city: 1, state: 1, org: 1, country: 0.35, nat: 0.35 };

export interface TrainingSentence extends LabelledText {
  tokens: Token[];
  labels: number[];
  hits: GazetteerHit[][];
}

export interface CorpusOptions {
  count: number;
  seed: number;
  gazetteerDropout: number;
  /** Which templates of each group to use: by index, e.g. every eighth held out. */
  useTemplate: (index: number) => boolean;
}

export function generateCorpus(ctx: FillContext, gazetteer: Gazetteer, options: CorpusOptions): TrainingSentence[] {
  const rng = new Rng(options.seed);
  const groups = TEMPLATE_GROUPS.map((g) => ({ ...g, templates: g.templates.filter((_, i) => options.useTemplate(i)) })).filter((g) => g.templates.length);
  const total = groups.reduce((a, g) => a + g.weight, 0);
  const out: TrainingSentence[] = [];
  while (out.length < options.count) {
    let r = rng.next() * total;
    const group = groups.find((g) => (r -= g.weight) < 0) ?? groups[groups.length - 1]!;
    const sample = render(rng.pick(group.templates), { ...ctx, rng });
    const tokens = tokenize(sample.text);
    if (!tokens.length) continue;
    const hits = gazetteer.match(tokens, (list) => !DROPOUT_SHARE[list] || !rng.chance(options.gazetteerDropout * DROPOUT_SHARE[list]!));
    out.push({ ...sample, tokens, labels: labelsFromSpans(tokens, sample.spans), hits });
  }
  return out;
}

export type { GazetteerLists };
