import { RE2JS } from 're2js';
import { errorMessage } from '@docflow/service-kit';
import type { DetectedEntity } from '../entities';
import { ENTITY_TYPE_PATTERN, LAYER_PRIORITY, MAX_ENTITY_TYPE_LENGTH } from '../entities';
import { type CompiledContext, compileContext, scoreWithContext } from '../engine/context';
import type { Recognizer } from '../engine/recognizer';

/** A tenant's L1 pattern: a regular expression (RE2 syntax) for one entity type. */
export interface TenantPattern {
  name: string;
  entity_type: string;
  pattern: string;
  /** Score of a match (default 0.9). */
  score?: number;
}

/** A tenant's L2 word list: every word or phrase, matched case-insensitively on word boundaries. */
export interface TenantWordList {
  name: string;
  entity_type: string;
  words: string[];
  score?: number;
}

/** A tenant's L3 recognizer: a regex, optional context words, and the score a match needs after context. */
export interface TenantRecognizer {
  name: string;
  entity_type: string;
  pattern: string;
  context_words?: string[];
  /** Score without context (default 0.5). */
  score?: number;
  /** Matches below it (after context) are dropped (default 0.5 when context words are given, else 0). */
  score_threshold?: number;
}

/** Everything a tenant adds to the built-in detectors (spec 4.17 rule 4), packs included. */
export interface TenantDetectors {
  tenant: string;
  patterns: TenantPattern[];
  word_lists: TenantWordList[];
  recognizers: TenantRecognizer[];
}

export const EMPTY_TENANT_DETECTORS = (tenant: string): TenantDetectors => ({ tenant, patterns: [], word_lists: [], recognizers: [] });

export const TENANT_LIMITS = {
  patternLength: 1000,
  /** Largest RE2 program (instructions), bounding memory and time per character. */
  programSize: 5000,
  wordsPerList: 100_000,
  wordLength: 200,
  contextWords: 50,
} as const;

export type RegexCheck = { ok: true } | { ok: false; reason: string };

/**
 * Whether a tenant regex can run in RE2 (linear time; no backreferences or
 * lookaround). Refused at save with the reason (spec 4.17 rule 8).
 */
export function checkTenantRegex(pattern: string): RegexCheck {
  if (typeof pattern !== 'string' || pattern.length === 0) return { ok: false, reason: 'must be a non-empty string' };
  if (pattern.length > TENANT_LIMITS.patternLength) return { ok: false, reason: `must be at most ${TENANT_LIMITS.patternLength} characters` };
  try {
    const re = RE2JS.compile(pattern);
    if (re.programSize() > TENANT_LIMITS.programSize) return { ok: false, reason: `is too complex (RE2 program of ${re.programSize()} instructions, at most ${TENANT_LIMITS.programSize})` };
    if (re.matcher('').matches()) return { ok: false, reason: 'must not match the empty string' };
  } catch (err) {
    return { ok: false, reason: `is not a valid RE2 expression: ${errorMessage(err)}` };
  }
  return { ok: true };
}

export function checkEntityType(type: unknown): RegexCheck {
  if (typeof type !== 'string' || !ENTITY_TYPE_PATTERN.test(type) || type.length > MAX_ENTITY_TYPE_LENGTH) {
    return { ok: false, reason: `must be upper-case letters, digits and single underscores, starting with a letter, at most ${MAX_ENTITY_TYPE_LENGTH} characters` };
  }
  return { ok: true };
}

/** A pattern compiled in RE2; undefined when it does not compile (skipped at run time, spec 4.17 rule 8). */
function compileRe2(pattern: string): RE2JS | undefined {
  try {
    return checkTenantRegex(pattern).ok ? RE2JS.compile(pattern) : undefined;
  } catch {
    return undefined;
  }
}

/** A tenant regex run by re2js: linear in the text, whatever the pattern (`(a+)+$` included). */
export class Re2Recognizer implements Recognizer {
  readonly types: readonly string[];
  readonly priority: number;
  private readonly context: CompiledContext | undefined;

  private constructor(
    readonly name: string,
    readonly layer: 'L1' | 'L3',
    private readonly type: string,
    private readonly re: RE2JS,
    private readonly score: number,
    private readonly minScore: number,
    contextWords: string[] | undefined,
  ) {
    this.types = [type];
    this.priority = LAYER_PRIORITY[layer];
    this.context = compileContext(contextWords?.length ? { words: contextWords } : undefined);
  }

  static fromPattern(p: TenantPattern): Re2Recognizer | undefined {
    const re = compileRe2(p.pattern);
    return re && checkEntityType(p.entity_type).ok ? new Re2Recognizer(`tenant:${p.name}`, 'L1', p.entity_type, re, p.score ?? 0.9, 0, undefined) : undefined;
  }

  static fromRecognizer(r: TenantRecognizer): Re2Recognizer | undefined {
    const re = compileRe2(r.pattern);
    const threshold = r.score_threshold ?? (r.context_words?.length ? 0.5 : 0);
    return re && checkEntityType(r.entity_type).ok ? new Re2Recognizer(`tenant:${r.name}`, 'L3', r.entity_type, re, r.score ?? 0.5, threshold, r.context_words) : undefined;
  }

  find(text: string, emit: (entity: DetectedEntity) => void): void {
    const m = this.re.matcher(text);
    let from = 0;
    while (from <= text.length && m.find(from)) {
      const start = m.start();
      const end = m.end();
      from = end > start ? end : end + 1;
      if (end <= start) continue;
      const score = scoreWithContext(this.score, this.context, text, start, end);
      if (score < this.minScore) continue;
      emit({ type: this.type, start, end, score, layer: this.layer, priority: this.priority, source: this.name });
    }
  }
}
