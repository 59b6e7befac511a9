import { errorMessage } from '@docflow/service-kit';
import { type DetectedEntity, EntitySelection, type Layer, LAYER_PRIORITY } from '../entities';
import { builtInL1 } from '../l1/builtin-l1';
import { WordAutomaton } from '../l2/aho-corasick';
import { type NamedEntityRecognizer } from '../l3/named-entities';
import { builtInL3Patterns } from '../l3/pattern-recognizers';
import { Re2Recognizer, type TenantDetectors } from '../tenant/tenant-detectors';
import { resolveOverlaps } from './overlaps';
import type { Recognizer } from './recognizer';

/** A tenant's detectors ready to run: RE2 recognizers and one automaton for all its word lists. */
export interface CompiledTenant {
  tenant: string;
  l1: Recognizer[];
  l2: { automaton: WordAutomaton; entries: { type: string; score: number; source: string }[] } | undefined;
  l3: Recognizer[];
  /** Detectors left out because their regex does not compile in RE2 (spec 4.17 rule 8: skipped). */
  skipped: string[];
}

export interface StageLatencies {
  l1_ms: number;
  l2_ms: number;
  l3_ms: number;
  resolve_ms: number;
}

export interface Detection {
  /** Non-overlapping, sorted by start. */
  entities: DetectedEntity[];
  latencies: StageLatencies;
  /** Layers that ran on this text. */
  layers: Layer[];
}

export interface DetectOptions {
  entityTypes?: readonly string[];
  tenant?: CompiledTenant;
}

export interface DetectionEngineOptions {
  /** The named-entity tagger behind PERSON, LOCATION, ORGANIZATION, NRP; none: those types are not found. */
  ner?: NamedEntityRecognizer;
  /** Tagger spans scoring below this are dropped. Default 0. */
  nerMinScore?: number;
}

/** Thrown when a detector fails: the caller must not send the text (spec 4.17 rule 8, fail closed). */
export class DetectorError extends Error {
  override readonly name = 'DetectorError';
}

const NER_TYPES = ['PERSON', 'LOCATION', 'ORGANIZATION', 'NRP', 'DATE_TIME'];

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

/**
 * Spec 4.17 rules 2 to 5 over one text: L1 (built-in and tenant patterns),
 * L2 (tenant word lists), L3 (pattern recognizers, tenant recognizers and
 * the named-entity tagger), then overlap resolution.
 */
export class DetectionEngine {
  private readonly l1 = builtInL1();
  private readonly l3 = builtInL3Patterns();
  private readonly ner: NamedEntityRecognizer | undefined;
  private readonly nerMinScore: number;

  constructor(options: DetectionEngineOptions = {}) {
    this.ner = options.ner;
    this.nerMinScore = options.nerMinScore ?? 0;
  }

  compileTenant(detectors: TenantDetectors): CompiledTenant {
    const skipped: string[] = [];
    const l1: Recognizer[] = [];
    for (const p of detectors.patterns) {
      const r = Re2Recognizer.fromPattern(p);
      if (r) l1.push(r);
      else skipped.push(p.name);
    }
    const l3: Recognizer[] = [];
    for (const p of detectors.recognizers) {
      const r = Re2Recognizer.fromRecognizer(p);
      if (r) l3.push(r);
      else skipped.push(p.name);
    }
    const words: string[] = [];
    const entries: { type: string; score: number; source: string }[] = [];
    for (const list of detectors.word_lists) {
      for (const w of list.words) {
        if (typeof w !== 'string' || !w.trim()) continue;
        words.push(w.trim());
        entries.push({ type: list.entity_type, score: list.score ?? 0.85, source: `tenant:${list.name}` });
      }
    }
    return { tenant: detectors.tenant, l1, l3, l2: words.length ? { automaton: new WordAutomaton(words), entries } : undefined, skipped };
  }

  detect(text: string, options: DetectOptions = {}): Detection {
    const selection = new EntitySelection(options.entityTypes);
    const found: DetectedEntity[] = [];
    const emit = (e: DetectedEntity) => {
      if (selection.wants(e.type)) found.push(e);
    };
    const layers = new Set<Layer>();
    const run = (recognizers: readonly Recognizer[]) => {
      for (const r of recognizers) {
        if (!selection.wantsAny(r.types) && !r.name.startsWith('tenant:')) continue;
        layers.add(r.layer);
        r.find(text, emit);
      }
    };
    try {
      let t = performance.now();
      run(this.l1);
      if (options.tenant) run(options.tenant.l1);
      const l1 = performance.now() - t;

      t = performance.now();
      const l2 = options.tenant?.l2;
      if (l2) {
        layers.add('L2');
        l2.automaton.scan(text, (m) => {
          const entry = l2.entries[m.pattern];
          if (entry) emit({ type: entry.type, start: m.start, end: m.end, score: entry.score, layer: 'L2', priority: LAYER_PRIORITY.L2, source: entry.source });
        });
      }
      const l2ms = performance.now() - t;

      t = performance.now();
      run(this.l3);
      if (options.tenant) run(options.tenant.l3);
      if (this.ner && selection.wantsAny(NER_TYPES)) {
        layers.add('L3');
        for (const span of this.ner.tag(text)) {
          if (span.score < this.nerMinScore) continue;
          emit({ type: span.type, start: span.start, end: span.end, score: span.score, layer: 'L3', priority: LAYER_PRIORITY.L3, source: 'ner', divisible: true });
        }
      }
      const l3 = performance.now() - t;

      t = performance.now();
      const entities = resolveOverlaps(found, text);
      const resolve = performance.now() - t;
      const order: Layer[] = ['L1', 'L2', 'L3'];
      return { entities, latencies: { l1_ms: round(l1), l2_ms: round(l2ms), l3_ms: round(l3), resolve_ms: round(resolve) }, layers: order.filter((l) => layers.has(l)) };
    } catch (err) {
      throw new DetectorError(`a detector failed: ${errorMessage(err)}`);
    }
  }
}
