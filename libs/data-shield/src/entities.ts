/** The layers of spec 4.17: L1 regex and validators, L2 word lists, L3 pattern recognizers and named entities. */
export type Layer = 'L1' | 'L2' | 'L3';

/** Default priorities (spec 4.17 rules 2-4): on an overlap the higher priority wins. */
export const LAYER_PRIORITY: Readonly<Record<Layer, number>> = { L1: 100, L2: 75, L3: 50 };

export const L1_ENTITY_TYPES = ['EMAIL', 'PHONE', 'SSN', 'CREDIT_CARD', 'IP', 'AADHAAR', 'PAN', 'IBAN'] as const;
export const L3_PATTERN_TYPES = ['URL', 'MEDICAL_LICENSE', 'US_DRIVER_LICENSE', 'US_PASSPORT', 'US_BANK_NUMBER', 'US_ITIN', 'CRYPTO', 'DATE_TIME'] as const;
export const NAMED_ENTITY_TYPES = ['PERSON', 'LOCATION', 'ORGANIZATION', 'NRP', 'DATE_TIME'] as const;

export type NamedEntityType = (typeof NAMED_ENTITY_TYPES)[number];

/** Every built-in entity type; DATE_TIME is detected only when a request names it (rule 3). */
export const BUILT_IN_ENTITY_TYPES: readonly string[] = [...new Set<string>([...L1_ENTITY_TYPES, 'PERSON', 'LOCATION', 'ORGANIZATION', 'NRP', ...L3_PATTERN_TYPES])];

/** Types found only when asked for by name. */
export const OPT_IN_TYPES: ReadonlySet<string> = new Set(['DATE_TIME']);

/** Entity type names (built-in and tenant-defined) as they appear in tokens: `<TYPE>_<8 hex>`. */
export const ENTITY_TYPE_PATTERN = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$/;
export const MAX_ENTITY_TYPE_LENGTH = 40;

/** A detected span of text. `end` is exclusive; the value itself is never part of what leaves the engine's caller. */
export interface DetectedEntity {
  type: string;
  start: number;
  end: number;
  score: number;
  layer: Layer;
  /** Higher wins on overlap (rule 5). */
  priority: number;
  /** What found it (a recognizer's or list's name), for diagnostics. */
  source: string;
  /**
   * A span of words (the tagger's names and addresses) that keeps its words
   * outside a higher-priority value cutting into it, instead of being
   * dropped whole: an address with a number L1 took still hides its street.
   */
  divisible?: boolean;
}

/** Which types a request wants: all defaults (DATE_TIME excluded) when none are named. */
export class EntitySelection {
  private readonly named: ReadonlySet<string> | undefined;

  constructor(entityTypes?: readonly string[]) {
    this.named = entityTypes && entityTypes.length > 0 ? new Set(entityTypes.map((t) => t.toUpperCase())) : undefined;
  }

  wants(type: string): boolean {
    if (this.named) return this.named.has(type);
    return !OPT_IN_TYPES.has(type);
  }

  wantsAny(types: readonly string[]): boolean {
    return types.some((t) => this.wants(t));
  }
}
