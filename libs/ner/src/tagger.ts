import { alignAddressSpans, type TokenSpan } from './address-spans';
import { sentenceFeatureRows } from './features';
import { alignOrganisationSpans } from './org-spans';
import { tidySpans } from './span-tidy';
import { Gazetteer } from './gazetteer';
import { allowedTransition, LABEL_COUNT, spansFromLabels, typeOf } from './labels';
import { NerWeights, type NerModelFile } from './model';
import { consistentNames } from './name-consistency';
import { tokenize } from './tokenizer';
import type { NerSpan, NerTagger } from './types';
import { viterbi, viterbi2 } from './viterbi';

/**
 * Tags one text: tokens → gazetteer hits → features → emission scores →
 * Viterbi over BIO labels → character spans. Long texts are cut at
 * sentence ends first (not at line breaks: an address spans lines) so that Viterbi's work stays linear and a
 * bad decision never runs across sentences.
 */
export class PerceptronTagger implements NerTagger {
  private readonly weights: NerWeights;
  private readonly gazetteer: Gazetteer;
  private readonly marginScale: number;

  constructor(file: NerModelFile) {
    this.weights = new NerWeights(file);
    this.gazetteer = new Gazetteer(file.gazetteers);
    this.marginScale = Number(file.meta['marginScale'] ?? 1) || 1;
  }

  tag(text: string): NerSpan[] {
    const tokens = tokenize(text);
    const out: NerSpan[] = [];
    for (const [from, to] of chunks(tokens)) {
      const part = tokens.slice(from, to);
      const hits = this.gazetteer.match(part);
      const emissions = this.weights.emissionsOfRows(sentenceFeatureRows(part, hits), part.length);
      const { transitions, start, transitions2 } = this.weights;
      const labels = transitions2 ? viterbi2(emissions, part.length, transitions, start, transitions2) : viterbi(emissions, part.length, transitions, start);
      const decoded: TokenSpan[] = spansFromLabels(labels).map((span) => ({ ...span, score: this.confidence(emissions, labels, span.from, span.to) }));
      for (const span of tidySpans(part, alignOrganisationSpans(part, hits, alignAddressSpans(part, hits, decoded)))) {
        out.push({ type: span.type, start: part[span.from]!.start, end: part[span.to - 1]!.end, score: span.score });
      }
    }
    return consistentNames(text, out);
  }

  /**
   * The smallest type margin (see typeMargin) over the span's tokens,
   * squashed into [0.5, 1): a span Viterbi returns is a decision, so it never
   * scores below one half; a typical entity token of the training data scores
   * about 0.82.
   */
  private confidence(emissions: Float64Array, labels: readonly number[], from: number, to: number): number {
    let margin = Infinity;
    for (let i = from; i < to; i++) margin = Math.min(margin, typeMargin(emissions, i, labels[i]!, i === 0 ? -1 : labels[i - 1]!));
    const score = 0.5 + 0.5 * (1 - Math.exp(-Math.max(0, margin) / this.marginScale));
    return Math.round(score * 1000) / 1000;
  }
}

/**
 * How far token i's best label of the chosen type (B- or I-, whichever scores
 * higher) leads the best label of any other type, O included, in emission
 * score, among the labels that may follow the previous one (`previous` = -1 at
 * the start): an I-LOCATION after O was never an option, whatever its score.
 * B-X against I-X is a question of boundaries, not of confidence.
 */
export function typeMargin(emissions: Float64Array, i: number, label: number, previous: number): number {
  const type = typeOf(label);
  let same = -Infinity;
  let other = -Infinity;
  for (let y = 0; y < LABEL_COUNT; y++) {
    if (!allowedTransition(previous, y)) continue;
    const v = emissions[i * LABEL_COUNT + y]!;
    if (typeOf(y) === type) same = Math.max(same, v);
    else other = Math.max(other, v);
  }
  return same - other;
}

const MAX_CHUNK = 200;
const HARD_BREAK = /^[.!?]$/;
const CONTINUES = /^[\p{Ll}\p{N}]/u;

/** Token ranges [from, to) ending after a sentence end or a line break, at most MAX_CHUNK tokens each. */
function* chunks(tokens: readonly { text: string }[]): Generator<[number, number]> {
  let from = 0;
  for (let i = 0; i < tokens.length; i++) {
    // A dot followed by a lower-case word or a number ("u. 94. st.", "No. 5") does not end a sentence.
    const end = i + 1 - from >= MAX_CHUNK || (HARD_BREAK.test(tokens[i]!.text) && i + 1 - from >= 8 && !CONTINUES.test(tokens[i + 1]?.text ?? ''));
    if (end) {
      yield [from, i + 1];
      from = i + 1;
    }
  }
  if (from < tokens.length) yield [from, tokens.length];
}
