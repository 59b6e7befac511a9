import type { DetectedEntity, Layer } from '../entities';
import { type CompiledContext, compileContext, type ContextRule, scoreWithContext } from './context';

/** A candidate a recognizer accepted: its span (possibly trimmed) and score before context. */
export interface Accepted {
  start: number;
  end: number;
  score: number;
  type?: string;
}

/**
 * Finds one kind of entity in a text. Built-in recognizers use V8 regular
 * expressions written to run in linear time (bounded quantifiers, no nested
 * repetition); tenant patterns never do (they run in RE2, see tenant/).
 */
export interface Recognizer {
  readonly name: string;
  /** The types it may emit (a request that wants none of them skips it). */
  readonly types: readonly string[];
  readonly layer: Layer;
  readonly priority: number;
  find(text: string, emit: (entity: DetectedEntity) => void): void;
}

export interface RegexRecognizerSpec {
  name: string;
  type: string;
  layer: Layer;
  priority: number;
  /** Global; bounded and free of nested quantifiers. */
  regex: RegExp;
  /** Skips the text at once when this is false (a cheap character test). */
  prefilter?: (text: string) => boolean;
  /** Checks a match (checksums, shapes): a score, or null to drop it. */
  validate?: (match: string, text: string, index: number) => number | Accepted | null;
  /** Score when validate gives none. */
  score?: number;
  context?: ContextRule;
  /** Matches scoring below this after context are dropped. */
  minScore?: number;
}

export class RegexRecognizer implements Recognizer {
  readonly name: string;
  readonly types: readonly string[];
  readonly layer: Layer;
  readonly priority: number;
  private readonly context: CompiledContext | undefined;

  constructor(private readonly spec: RegexRecognizerSpec) {
    this.name = spec.name;
    this.types = [spec.type];
    this.layer = spec.layer;
    this.priority = spec.priority;
    this.context = compileContext(spec.context);
  }

  find(text: string, emit: (entity: DetectedEntity) => void): void {
    const { spec } = this;
    if (spec.prefilter && !spec.prefilter(text)) return;
    const re = new RegExp(spec.regex.source, spec.regex.flags.includes('g') ? spec.regex.flags : `${spec.regex.flags}g`);
    let m: RegExpExecArray | null;
    while ((m = re.exec(text)) !== null) {
      if (m[0].length === 0) {
        re.lastIndex++;
        continue;
      }
      const checked = spec.validate ? spec.validate(m[0], text, m.index) : (spec.score ?? 0.5);
      if (checked === null) continue;
      const accepted: Accepted = typeof checked === 'number' ? { start: m.index, end: m.index + m[0].length, score: checked } : checked;
      const score = scoreWithContext(accepted.score, this.context, text, accepted.start, accepted.end);
      if (score < (spec.minScore ?? 0)) continue;
      emit({ type: accepted.type ?? spec.type, start: accepted.start, end: accepted.end, score, layer: spec.layer, priority: spec.priority, source: spec.name });
    }
  }
}
