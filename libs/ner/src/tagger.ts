import { sentenceFeatures } from './features';
import { Gazetteer } from './gazetteer';
import { LABEL_COUNT, spansFromLabels } from './labels';
import { NerWeights, type NerModelFile } from './model';
import { tokenize } from './tokenizer';
import type { NerSpan, NerTagger } from './types';
import { viterbi } from './viterbi';

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
      const features = sentenceFeatures(part, this.gazetteer.match(part));
      const emissions = this.weights.emissions(features);
      const labels = viterbi(emissions, part.length, this.weights.transitions, this.weights.start);
      for (const span of spansFromLabels(labels)) {
        out.push({
          type: span.type,
          start: part[span.from]!.start,
          end: part[span.to - 1]!.end,
          score: this.confidence(emissions, labels, span.from, span.to),
        });
      }
    }
    return out;
  }

  /**
   * The smallest margin, over the span's tokens, between the chosen label's
   * emission score and the best other label's, squashed into [0.5, 1): a span
   * Viterbi returns is a decision, so it never scores below one half.
   */
  private confidence(emissions: Float64Array, labels: readonly number[], from: number, to: number): number {
    let margin = Infinity;
    for (let i = from; i < to; i++) {
      const chosen = emissions[i * LABEL_COUNT + labels[i]!]!;
      let other = -Infinity;
      for (let y = 0; y < LABEL_COUNT; y++) if (y !== labels[i]) other = Math.max(other, emissions[i * LABEL_COUNT + y]!);
      margin = Math.min(margin, chosen - other);
    }
    const score = 0.5 + 0.5 * (1 - Math.exp(-Math.max(0, margin) / this.marginScale));
    return Math.round(score * 1000) / 1000;
  }
}

const MAX_CHUNK = 200;
const HARD_BREAK = /^[.!?]$/;

/** Token ranges [from, to) ending after a sentence end or a line break, at most MAX_CHUNK tokens each. */
function* chunks(tokens: readonly { text: string }[]): Generator<[number, number]> {
  let from = 0;
  for (let i = 0; i < tokens.length; i++) {
    const end = i + 1 - from >= MAX_CHUNK || (HARD_BREAK.test(tokens[i]!.text) && i + 1 - from >= 8);
    if (end) {
      yield [from, i + 1];
      from = i + 1;
    }
  }
  if (from < tokens.length) yield [from, tokens.length];
}
