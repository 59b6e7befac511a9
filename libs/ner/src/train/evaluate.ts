import type { NerEntityType } from '../types';

/**
 * Precision, recall and F-beta per entity type, two ways: strict (a predicted
 * span counts only when type, start and end equal a gold span's) and lenient
 * (a predicted span counts when it overlaps a gold span of its type; a gold
 * span is found when a predicted span of its type overlaps it).
 */
export interface TypedSpan {
  type: string;
  start: number;
  end: number;
}

export interface Counts {
  gold: number;
  predicted: number;
  strictHits: number;
  lenientPredHits: number;
  lenientGoldHits: number;
}

export type CountsByType = Record<string, Counts>;

const overlaps = (a: TypedSpan, b: TypedSpan): boolean => a.type === b.type && a.start < b.end && b.start < a.end;

export function addCounts(into: CountsByType, gold: readonly TypedSpan[], predicted: readonly TypedSpan[], types: readonly NerEntityType[]): void {
  for (const type of types) {
    const g = gold.filter((s) => s.type === type);
    const p = predicted.filter((s) => s.type === type);
    const c = (into[type] ??= { gold: 0, predicted: 0, strictHits: 0, lenientPredHits: 0, lenientGoldHits: 0 });
    c.gold += g.length;
    c.predicted += p.length;
    c.strictHits += p.filter((s) => g.some((t) => t.start === s.start && t.end === s.end)).length;
    c.lenientPredHits += p.filter((s) => g.some((t) => overlaps(s, t))).length;
    c.lenientGoldHits += g.filter((t) => p.some((s) => overlaps(s, t))).length;
  }
}

export interface Scores {
  precision: number;
  recall: number;
  f: number;
}

export function fBeta(precision: number, recall: number, beta = 2): number {
  const b2 = beta * beta;
  return precision + recall === 0 ? 0 : ((1 + b2) * precision * recall) / (b2 * precision + recall);
}

export function scores(c: Counts, mode: 'strict' | 'lenient'): Scores {
  const predHits = mode === 'strict' ? c.strictHits : c.lenientPredHits;
  const goldHits = mode === 'strict' ? c.strictHits : c.lenientGoldHits;
  const precision = c.predicted ? predHits / c.predicted : 0;
  const recall = c.gold ? goldHits / c.gold : 0;
  return { precision, recall, f: fBeta(precision, recall) };
}

export function totalOf(by: CountsByType): Counts {
  const t: Counts = { gold: 0, predicted: 0, strictHits: 0, lenientPredHits: 0, lenientGoldHits: 0 };
  for (const c of Object.values(by)) {
    t.gold += c.gold;
    t.predicted += c.predicted;
    t.strictHits += c.strictHits;
    t.lenientPredHits += c.lenientPredHits;
    t.lenientGoldHits += c.lenientGoldHits;
  }
  return t;
}

/** Rows for console.table: one per type and the micro-average. */
export function scoreRows(by: CountsByType): Record<string, string | number>[] {
  const entries: [string, Counts][] = [...Object.entries(by), ['ALL (micro)', totalOf(by)]];
  return entries.map(([type, c]) => {
    const s = scores(c, 'strict');
    const l = scores(c, 'lenient');
    const r3 = (v: number): number => Math.round(v * 1000) / 1000;
    return {
      type,
      gold: c.gold,
      predicted: c.predicted,
      strict_P: r3(s.precision),
      strict_R: r3(s.recall),
      strict_F2: r3(s.f),
      lenient_P: r3(l.precision),
      lenient_R: r3(l.recall),
      lenient_F2: r3(l.f),
    };
  });
}
