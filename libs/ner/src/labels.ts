import { NER_ENTITY_TYPES, type NerEntityType } from './types';
import type { Token } from './tokenizer';

/**
 * BIO labels: index 0 is O, then B-X and I-X for each entity type in
 * NER_ENTITY_TYPES order. An I-X may only follow B-X or I-X; Viterbi enforces it.
 */
export const LABELS: readonly string[] = ['O', ...NER_ENTITY_TYPES.flatMap((t) => [`B-${t}`, `I-${t}`])];
export const LABEL_COUNT = LABELS.length;
export const OUTSIDE = 0;

export function beginOf(type: NerEntityType): number {
  return 1 + 2 * NER_ENTITY_TYPES.indexOf(type);
}

export function typeOf(label: number): NerEntityType | undefined {
  return label === OUTSIDE ? undefined : NER_ENTITY_TYPES[(label - 1) >> 1];
}

export function isInside(label: number): boolean {
  return label !== OUTSIDE && (label - 1) % 2 === 1;
}

/** Whether label `to` may follow label `from` (from = -1 for the sentence start). */
export function allowedTransition(from: number, to: number): boolean {
  if (!isInside(to)) return true;
  return from !== -1 && from !== OUTSIDE && typeOf(from) === typeOf(to);
}

export interface CharSpan {
  type: NerEntityType;
  start: number;
  end: number;
}

/**
 * Gold character spans → one label per token. A token belongs to a span when
 * it lies inside it; spans that cut through a token still claim it, which keeps
 * training data with sloppy spans usable.
 */
export function labelsFromSpans(tokens: readonly Token[], spans: readonly CharSpan[]): number[] {
  const labels = new Array<number>(tokens.length).fill(OUTSIDE);
  for (const span of spans) {
    let first = true;
    tokens.forEach((t, i) => {
      if (t.end <= span.start || t.start >= span.end) return;
      labels[i] = first ? beginOf(span.type) : beginOf(span.type) + 1;
      first = false;
    });
  }
  return labels;
}

/** Token labels → token index ranges [from, to) per entity. A stray I-X opens an entity, as B-X would. */
export function spansFromLabels(labels: readonly number[]): { type: NerEntityType; from: number; to: number }[] {
  const out: { type: NerEntityType; from: number; to: number }[] = [];
  let open: { type: NerEntityType; from: number; to: number } | undefined;
  labels.forEach((label, i) => {
    const type = typeOf(label);
    if (open && (!type || !isInside(label) || type !== open.type)) {
      out.push(open);
      open = undefined;
    }
    if (type && !open) open = { type, from: i, to: i + 1 };
    else if (open) open.to = i + 1;
  });
  if (open) out.push(open);
  return out;
}
